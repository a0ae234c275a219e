import type { ActorEntry } from '../../schemas/actors.ts';
import type { ActorInspection, MachineActorEntry } from './actorInspection.ts';
import { contextSummary } from './contextSummary.ts';

/** A machine actor as an entry of the live view. Pure. */
export function machineEntry(entry: MachineActorEntry, ended = false): ActorEntry {
  const snapshot = entry.actor.snapshot;
  const context = contextSummary(snapshot.context);
  const named = entry.kind === 'city' ? context['name'] : context['city'];
  const city = typeof named === 'string' ? named : undefined;
  return {
    id: entry.id,
    kind: entry.kind,
    ...(city === undefined ? {} : { city }),
    state: snapshot.value as unknown,
    status: ended || snapshot.status !== 'active' ? 'done' : 'active',
    context,
  };
}

/**
 * The live actor view (read-only): every machine actor the supervisor runs (supervisor, cities, requests,
 * sessions, agents, schedulers) from the inspection hub. `watch` costs nothing until called, and the one hub listener it
 * starts ends with the function it returns.
 */
export class ActorView {
  constructor(private readonly inspection: ActorInspection) {}

  /** Every live actor now, in creation order. */
  list(): Promise<ActorEntry[]> {
    return Promise.resolve(this.inspection.list().map((entry) => machineEntry(entry)));
  }

  /**
   * The current list, then `onChange` for every change (an actor that ended comes once more with
   * `status: done`). Changes that happen while the list is read are delivered after it, never lost.
   */
  async watch(onChange: (entry: ActorEntry) => void): Promise<{ initial: ActorEntry[]; stop: () => void }> {
    const early: ActorEntry[] = [];
    let deliver = (entry: ActorEntry): void => void early.push(entry);
    const offMachines = this.inspection.subscribe((change) =>
      deliver(machineEntry(change.entry, change.ended)),
    );
    const initial = await this.list();
    deliver = onChange;
    for (const entry of early) onChange(entry);
    return {
      initial,
      stop: offMachines,
    };
  }
}
