import { recordOf } from '../../../machines/recorded.ts';
import { payloadAs } from '../../../schemas/eventDecode.ts';
import { NotOwnerError } from '../../runtime/errors.ts';
import type { JournalDraft, JournalEvent } from '../../runtime/journal/journal.ts';
import type { LogRuntime } from '../../runtime/logRuntime/logRuntime.ts';
import type { LogFolder } from '../../runtime/logRuntime/decision.ts';
import type { LeaseOwner } from './cityLeases.ts';

/** The event a new owner fences a city's log with. */
export const OWNER_CHANGED = 'city.owner_changed';

/** What the fence asks of the lease table. */
export interface LeaseView {
  readonly me: LeaseOwner;
  holds(city: string): boolean;
  /** The holder as last known, for the refusal's text (may be stale or absent). */
  knownOwner(city: string): LeaseOwner | undefined;
}

/**
 * The ownership fence of one city log in a cluster. It folds the log (as every reader does) to know the
 * owner the log names last, and it is the log runtime's `guard`: an append goes out only while this
 * supervisor holds the city's lease and the log names no other owner. Taking over writes
 * `city.owner_changed` at the head the new owner read, so the old owner's next append (at an older head)
 * meets JetStream's expected-last-sequence refusal, its catch-up folds the new owner, and from then on
 * this guard refuses it before anything is sent: a supervisor that lost its lease never writes again,
 * even one paused past its lease that still believes it owns the city.
 */
export class CityFence implements LogFolder {
  /** The owner the log names last (undefined: none yet, the creator's log). */
  #logOwner: string | undefined;

  constructor(
    readonly city: string,
    private readonly leases: LeaseView,
  ) {}

  get logOwner(): string | undefined {
    return this.#logOwner;
  }

  fold(events: readonly JournalEvent[]): void {
    for (const event of events) {
      if (event.type !== OWNER_CHANGED) continue;
      this.#logOwner = payloadAs(this.city, event, OWNER_CHANGED).owner;
    }
  }

  /**
   * The runtime's guard: throws `NotOwnerError` unless we hold the lease and the log names no other
   * owner; the one append allowed against another named owner is our own `city.owner_changed`.
   */
  readonly guard = (drafts: readonly JournalDraft[]): void => {
    const me = this.leases.me.id;
    const takingOver =
      drafts.length === 1 &&
      drafts[0]!.type === OWNER_CHANGED &&
      (drafts[0]!.payload as { owner?: unknown } | undefined)?.owner === me;
    const logOk = takingOver || this.#logOwner === undefined || this.#logOwner === me;
    if (logOk && this.leases.holds(this.city)) return;
    throw new NotOwnerError(this.city, this.leases.knownOwner(this.city));
  };

  /**
   * Fences the log for us: appends `city.owner_changed {owner, url, epoch}` through `log` (fenced on its
   * head; a conflict folds the newcomer's events and tries again while we hold the lease).
   * @throws NotOwnerError when the lease went meanwhile; what the journal throws.
   */
  async takeOver(log: LogRuntime, epoch: number): Promise<void> {
    const { id, url } = this.leases.me;
    const draft = {
      type: OWNER_CHANGED,
      actor: 'gc',
      subject: this.city,
      payload: { owner: id, url, epoch },
    };
    await log.run(() => ({ records: [recordOf(draft as never)], commit: () => undefined }));
  }
}
