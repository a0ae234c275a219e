import { join } from 'node:path';
import { initialTransition, type SnapshotFrom } from 'xstate';
import {
  cityEventsFromRecord,
  cityMachine,
  cityStatus,
  leafState,
  type CityEvent,
  type CityState,
} from '../../machines/city.machine.ts';

export type { CityState };
import type { CityConfig } from '../config/index.ts';
import {
  CityServiceSet,
  type CityService,
  type CityServiceMap,
  type CityServiceName,
} from '../runtime/cityServices.ts';
import { foldingReported } from '../runtime/damagedRecords.ts';
import type { EventClock } from '../runtime/eventClock.ts';
import type { Journal, JournalBackend, JournalEvent } from '../runtime/journal/journal.ts';
import type { ActorObserver } from '../runtime/actorObserver.ts';
import { JournaledActor } from '../runtime/journaledActor.ts';
import { LogRuntime, type LogRuntimeOptions } from '../runtime/logRuntime/logRuntime.ts';
import type { LogFolder } from '../runtime/logRuntime/decision.ts';

export type CityMachine = typeof cityMachine;
export type CitySnapshot = SnapshotFrom<CityMachine>;

/** The city's log: `<city dir>/.gc/events.jsonl` (the JetStream backend derives its stream from it). */
export const cityLogFile = (dir: string): string => join(dir, '.gc', 'events.jsonl');

/**
 * A city as the supervisor runs it: the city machine on the city's own log (rebuilt by replaying that log
 * when opened), plus what only lives while the process does: the services its phases started and its
 * parsed `city.toml`.
 */
export class CityActor {
  /** Services started by the current start attempt, in start order. */
  readonly services = new Map<CityServiceName, CityService>();
  config: CityConfig | undefined;

  private constructor(
    readonly actor: JournaledActor<CityMachine>,
    /** The one writer of the city's log: every family appends through it and folds from it. */
    readonly log: LogRuntime,
  ) {}

  get journal(): Journal {
    return this.log.journal;
  }

  /**
   * Opens the city's log through `backend` and replays it. `wake` is the machine's effect slot: called
   * after a committed transition that leaves work for the reconciler. `clock` stamps what the machine
   * records, after every recorded `ts`. `observer` is told of the actor and its commits. `fence` (cluster
   * mode) folds the log first and guards every append of its runtime (actors/supervisor/cluster/cityFence.ts).
   * Effects: opens (creating) the log; reads all of it. Throws what the backend throws.
   */
  static async open(
    backend: JournalBackend,
    entry: { name: string; path: string },
    wake: () => void,
    clock?: EventClock,
    observer?: ActorObserver,
    fence?: LogFolder & { guard: LogRuntimeOptions['guard'] },
  ): Promise<CityActor> {
    const journal = await backend.open({ name: entry.name, file: cityLogFile(entry.path) });
    const machine = cityMachine.provide({ actions: { wake: () => wake() } });
    const [initial] = initialTransition(machine, { name: entry.name, path: entry.path });
    const log = new LogRuntime(journal, 0, {
      ...(clock ? { clock } : {}),
      ...(fence ? { guard: fence.guard } : {}),
    });
    if (fence) await log.attach(fence, 0);
    const folder: LogFolder = {
      fold: (events) => {
        for (const event of events) clock?.observe(event.ts);
        city.fold(events);
      },
    };
    const city: CityActor = new CityActor(new JournaledActor(machine, initial, log, folder, observer), log);
    await log.attach(folder, 0);
    log.follow();
    return city;
  }

  get name(): string {
    return this.snapshot.context.name;
  }

  get path(): string {
    return this.snapshot.context.path;
  }

  get snapshot(): CitySnapshot {
    return this.actor.snapshot;
  }

  get state(): CityState {
    return leafState(this.snapshot.value);
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /** Public status text (`starting_agents` while starting). */
  get status(): string {
    return cityStatus(this.snapshot.value);
  }

  /** Decides, records, commits (see `JournaledActor.send`). */
  send(event: CityEvent): Promise<boolean> {
    return this.actor.send(event);
  }

  /**
   * Folds recorded city-log events (replay, catch-up).
   * @throws DamagedRecordError (logged) at a record whose payload does not match its schema.
   */
  fold(events: readonly JournalEvent[]): void {
    const log = this.journal.name;
    this.actor.fold(foldingReported(() => events.flatMap((event) => cityEventsFromRecord(event, log))));
  }

  /** What routes see of the started services (`LiveCity.services`). */
  serviceValues(): CityServiceMap {
    const set = new CityServiceSet();
    for (const [name, s] of this.services) set.put(name, s.service);
    return set.map;
  }

  /**
   * Stops the services in reverse start order; resolves the first failure's message, if any. `final` (the
   * city stops or is unregistered, not the supervisor) ends what each service started first.
   */
  async stopServices(final = false): Promise<string | undefined> {
    let failure: string | undefined;
    for (const [name, service] of [...this.services].reverse()) {
      try {
        if (final) await service.end?.();
        await service.stop();
      } catch (err) {
        failure ??= `stopping ${name}: ${(err as Error).message}`;
      }
    }
    this.services.clear();
    return failure;
  }
}
