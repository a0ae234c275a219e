/**
 * A bead city held in memory for the pure tiers: commands go through the production decider and are folded
 * by the production evolve, as the supervisor does, without a journal. `run` throws on a refusal, so a
 * test cannot build on a step that did not happen; `attempt` answers the outcome either way.
 */
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import {
  createModel,
  decide,
  evolve,
  type BeadCommand,
  type BeadModel,
  type Outcome,
} from '../../machines/beads/index.ts';
import type { BeadCreateBody, BeadUpdateBody } from '../../schemas/beads.ts';

export const CITY_NOW = '2030-05-01T12:00:00.000Z';

export interface BeadCity {
  model: BeadModel;
  /** Every event folded so far, in order. */
  written: JournalEvent[];
  run(command: BeadCommand): unknown;
  attempt(command: BeadCommand): Outcome<unknown>;
  create(input: BeadCreateBody): string;
  update(id: string, patch: BeadUpdateBody): void;
  close(id: string): void;
  depend(id: string, dependsOn: string, depType?: string): void;
}

export function beadCity(prefix = 'tc', actor = 'tester'): BeadCity {
  const model = createModel(prefix);
  const written: JournalEvent[] = [];
  const ctx = { actor, now: CITY_NOW };
  const attempt = (command: BeadCommand): Outcome<unknown> => {
    const outcome = decide(model, command, ctx) as Outcome<unknown>;
    if (!outcome.ok) return outcome;
    for (const draft of [outcome.decision.event, ...outcome.decision.notices]) {
      if (!draft) continue;
      const event: JournalEvent = { ...draft, seq: model.seq + 1, ts: draft.ts ?? CITY_NOW };
      evolve(model, event, 'beadCity');
      written.push(event);
    }
    return outcome;
  };
  const run = (command: BeadCommand): unknown => {
    const outcome = attempt(command);
    if (!outcome.ok) throw new Error(`${command.type} refused: ${JSON.stringify(outcome.rejection)}`);
    return outcome.decision.result;
  };
  return {
    model,
    written,
    run,
    attempt,
    create: (input) => (run({ type: 'CreateBead', input }) as { bead: { id: string } }).bead.id,
    update: (id, patch) => void run({ type: 'UpdateBead', id, patch }),
    close: (id) => void run({ type: 'CloseBead', id }),
    depend: (id, dependsOn, depType = 'blocks') =>
      void run({ type: 'AddDependency', id, dependsOn, depType }),
  };
}
