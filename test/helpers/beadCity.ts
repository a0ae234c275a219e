/**
 * A bead city held in memory for the pure tiers: commands go through the production decider and are folded
 * by the production evolve, as the supervisor does, without a journal. A refused command throws, so a
 * test cannot build on a step that did not happen.
 */
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { createModel, decide, evolve, type BeadCommand, type BeadModel } from '../../machines/beads/index.ts';
import type { BeadCreateBody, BeadUpdateBody } from '../../schemas/beads.ts';

export const CITY_NOW = '2030-05-01T12:00:00.000Z';

export interface BeadCity {
  model: BeadModel;
  run(command: BeadCommand): unknown;
  create(input: BeadCreateBody): string;
  update(id: string, patch: BeadUpdateBody): void;
  close(id: string): void;
  depend(id: string, dependsOn: string, depType?: string): void;
}

export function beadCity(prefix = 'tc'): BeadCity {
  const model = createModel(prefix);
  const ctx = { actor: 'tester', now: CITY_NOW };
  const run = (command: BeadCommand): unknown => {
    const outcome = decide(model, command, ctx);
    if (!outcome.ok) throw new Error(`${command.type} refused: ${JSON.stringify(outcome.rejection)}`);
    for (const draft of [outcome.decision.event, ...outcome.decision.notices]) {
      if (!draft) continue;
      const event: JournalEvent = { ...draft, seq: model.seq + 1, ts: draft.ts ?? CITY_NOW };
      evolve(model, event, 'beadCity');
    }
    return outcome.decision.result;
  };
  return {
    model,
    run,
    create: (input) => (run({ type: 'CreateBead', input }) as { bead: { id: string } }).bead.id,
    update: (id, patch) => void run({ type: 'UpdateBead', id, patch }),
    close: (id) => void run({ type: 'CloseBead', id }),
    depend: (id, dependsOn, depType = 'blocks') =>
      void run({ type: 'AddDependency', id, dependsOn, depType }),
  };
}
