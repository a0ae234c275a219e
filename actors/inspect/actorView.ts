import type { ActorEntry } from '../../schemas/actors.ts';
import type { LiveCities } from '../liveCities.ts';
import type { ActorInspection, MachineActorEntry } from './actorInspection.ts';
import { contextSummary } from './contextSummary.ts';
import { listSessionActors, watchSessionActors } from './sessionActors.ts';

/** A machine actor as an entry of the live view. Pure. */
export function machineEntry(entry: MachineActorEntry, ended = false): ActorEntry {
  const snapshot = entry.actor.snapshot;
  const context = contextSummary(snapshot.context);
  const city = entry.kind === 'city' && typeof context['name'] === 'string' ? context['name'] : undefined;
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
 * The live actor view (read-only): every machine actor the supervisor runs (supervisor, cities, requests)
 * from the inspection hub, and every session from its city's session service. `watch` costs nothing
 * until called, and what it starts (one hub listener, one journal subscription per city for the
 * sessions) ends with the function it returns.
 */
export class ActorView {
  constructor(
    private readonly inspection: ActorInspection,
    private readonly cities: LiveCities,
  ) {}

  /** Every live actor now: machines in creation order, then sessions by city. */
  async list(): Promise<ActorEntry[]> {
    const machines = this.inspection.list().map((entry) => machineEntry(entry));
    return [...machines, ...(await listSessionActors(this.cities))];
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
    const offSessions = watchSessionActors(this.cities, initial, (entry) => deliver(entry));
    deliver = onChange;
    for (const entry of early) onChange(entry);
    return {
      initial,
      stop: () => {
        offMachines();
        offSessions();
      },
    };
  }
}
