/**
 * The timestamps of the events the supervisor's machines record (its own log and every city's lifecycle).
 * One operation's events span two logs and are recorded one after another, so stamping them from one
 * clock that only moves forward keeps their `ts` in the operation's order: each stamp is strictly later
 * than every stamp before it and every `ts` observed in the logs at open, even when the wall clock steps
 * back or an earlier run's clock was ahead. Strictly, by at least 1 ms (the precision of `ts`), so the
 * supervisor's ts-ordered event list never has to break a tie between two logs.
 */
export class EventClock {
  #last = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** The next stamp (ISO 8601, UTC, millisecond precision). */
  next(): string {
    this.#last = Math.max(this.now().getTime(), this.#last + 1);
    return new Date(this.#last).toISOString();
  }

  /** Never stamps at or before `ts` (a recorded event's) from now on; an unparsable `ts` is ignored. */
  observe(ts: string): void {
    const at = Date.parse(ts);
    if (Number.isFinite(at) && at > this.#last) this.#last = at;
  }
}
