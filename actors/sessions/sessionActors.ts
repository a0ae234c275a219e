import type { AnyMachineSnapshot, EventObject } from 'xstate';
import type { JournalEvent } from '../runtime/journal/journal.ts';
import type { LogFolder } from '../runtime/logRuntime/decision.ts';
import type { ActorObserver, ObservedActor } from '../runtime/actorObserver.ts';
import { isBeadStateEvent } from '../../machines/beads/events.ts';
import type { StoredBead } from '../../machines/beads/model.ts';
import { sessionMachine } from '../../machines/sessions/session.machine.ts';
import { isSessionBead, K, sessionOf, type SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import { commandBetween } from '../../machines/sessions/transitions.ts';

/** What the live view and the inspector show of a session: who it is and where it runs. Pure. */
function sessionContext(city: string, s: SessionRecord): Record<string, unknown> {
  const context: Record<string, unknown> = {
    city,
    id: s.id,
    template: s.template,
    provider: s.provider,
    session_name: s.sessionName,
  };
  if (s.alias) context['alias'] = s.alias;
  if (s.title) context['title'] = s.title;
  const reason = s.state === 'quarantined' ? 'quarantine' : s.meta[K.sleepReason];
  if (reason) context['reason'] = reason;
  return context;
}

const snapshotOf = (city: string, s: SessionRecord): AnyMachineSnapshot =>
  sessionMachine.resolveState({ value: s.state, context: sessionContext(city, s) });

/** One session as the hub sees it: the hub keys actors by object, so a session keeps one, snapshots change. */
interface SessionActor {
  readonly machine: ObservedActor['machine'];
  snapshot: AnyMachineSnapshot;
}

/**
 * A city's sessions as machine actors of the session machine, for the inspection hub (the live view and
 * the XState inspector): seeded from the bead store's open sessions, then folded from the city log, each
 * session bead's new record being a snapshot (its state the machine's state, the move's command the
 * event). A session that closes reaches the machine's final state; when the service stops, the ones left
 * end with it. Costs a type check per event when nothing watches: the hub builds nothing then.
 */
export class SessionActorReporter implements LogFolder {
  readonly #actors = new Map<string, SessionActor>();

  constructor(
    private readonly city: string,
    private readonly observer: ActorObserver,
  ) {}

  /** Announces the sessions open now (the bead store's model at the seq the reporter attaches at). */
  seed(open: readonly SessionRecord[]): void {
    for (const s of open) this.#report(s);
  }

  fold(events: readonly JournalEvent[]): void {
    for (const event of events) {
      if (!isBeadStateEvent(event.type)) continue;
      const bead = (event.payload as { bead?: StoredBead } | undefined)?.bead;
      if (!bead || !isSessionBead(bead)) continue;
      if (event.type === 'bead.deleted') this.#end(bead.id);
      else this.#report(sessionOf(bead));
    }
  }

  /** Ends every session still reported (the city stops: its session actors stop with it). */
  stop(): void {
    for (const id of [...this.#actors.keys()]) this.#end(id);
  }

  #report(s: SessionRecord): void {
    const before = this.#actors.get(s.id);
    if (!before && s.closed) return; // closed before we looked: nothing live to show
    const snapshot = snapshotOf(this.city, s);
    if (!before) {
      const actor: SessionActor = { machine: sessionMachine, snapshot };
      this.#actors.set(s.id, actor);
      this.observer.created(actor);
      return;
    }
    const from = before.snapshot.value as SessionRecord['state'];
    const command = from === s.state ? undefined : commandBetween(from, s.state);
    before.snapshot = snapshot;
    const event: EventObject | undefined = command ? { type: command.toUpperCase() } : undefined;
    this.observer.changed(before, event);
    if (s.closed) this.#actors.delete(s.id);
  }

  #end(id: string): void {
    const actor = this.#actors.get(id);
    if (!actor) return;
    this.#actors.delete(id);
    actor.snapshot = { ...actor.snapshot, status: 'stopped', error: undefined } as AnyMachineSnapshot;
    this.observer.changed(actor, undefined);
  }
}
