import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { isBrokerUnavailable } from '../../runtime/journal/jetstreamErrors.ts';

/** Who holds a lease: the supervisor's id and the API URL other supervisors forward to. */
export interface LeaseOwner {
  id: string;
  url: string;
}

/** A lease this supervisor holds. */
interface Held {
  /** The KV revision of our last write: the next renewal must find exactly it (else we lost the lease). */
  revision: number;
  /** The revision when taken: the epoch written into the city's log. */
  epoch: number;
  /** Local time until which we may act as owner: the last renewal's send time + TTL − a safety margin. */
  validUntil: number;
}

/** Why a lease was lost: someone else's revision is there (`taken`), or renewals failed past validity. */
export type LeaseLoss = 'taken' | 'expired';

/**
 * The leases of one supervisor on the cities of its cluster: one key per city in a JetStream key-value
 * bucket whose entries live `ttlMs` after their last write (the bucket's max age), so a dead owner's
 * lease vanishes by itself. Taking is a revision-checked create (fails while anyone holds the key),
 * renewing a revision-checked update (fails once anyone else wrote it), releasing a revision-checked
 * delete. Validity is judged locally from the send time of the last successful write, so an owner
 * stops acting as one before the server can hand the key to another, even when it cannot reach the
 * server. This is no consensus of our own: JetStream's compare-and-set is the arbiter, and the city log's
 * expected-last-sequence check (cityFence.ts) fences whatever slips through a paused process.
 */
export class CityLeases {
  readonly #held = new Map<string, Held>();

  constructor(
    private readonly kv: KV,
    readonly me: LeaseOwner,
    readonly ttlMs: number,
    private readonly onLost: (city: string, why: LeaseLoss) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** The margin kept off the TTL: renewal round trips and clock rate differences. */
  get #margin(): number {
    return Math.max(100, Math.floor(this.ttlMs / 5));
  }

  /**
   * Takes `city`'s lease when nobody holds it; resolves its epoch (the KV revision), or undefined when
   * another supervisor holds it. Throws `UnavailableError`-like client errors when the broker cannot
   * answer (nothing is held then).
   */
  async acquire(city: string): Promise<number | undefined> {
    const held = this.#held.get(city);
    if (held && this.holds(city)) return held.epoch;
    const sentAt = this.now();
    let revision: number;
    try {
      revision = await this.kv.create(city, JSON.stringify(this.me));
    } catch (err) {
      if (isTaken(err)) return undefined;
      throw err;
    }
    this.#held.set(city, { revision, epoch: revision, validUntil: sentAt + this.ttlMs - this.#margin });
    return revision;
  }

  /** True while we hold `city`'s lease and it is still valid by our clock. */
  holds(city: string): boolean {
    const held = this.#held.get(city);
    return held !== undefined && this.now() < held.validUntil;
  }

  /** The epoch of a lease we hold, else undefined. */
  epoch(city: string): number | undefined {
    return this.holds(city) ? this.#held.get(city)!.epoch : undefined;
  }

  /** The cities whose lease we hold now. */
  heldCities(): string[] {
    return [...this.#held.keys()].filter((c) => this.holds(c));
  }

  /**
   * Renews every lease we hold (one revision-checked update each, in parallel). A lease someone else
   * wrote, or one that stayed unrenewed past its validity, is dropped and reported to `onLost` at once.
   * Never throws.
   */
  async renewAll(): Promise<void> {
    await Promise.all([...this.#held.keys()].map((city) => this.#renew(city)));
  }

  /** The current holder of `city`'s lease as the bucket says, or undefined when nobody holds it. */
  async owner(city: string): Promise<(LeaseOwner & { revision: number }) | undefined> {
    const entry = await this.kv.get(city);
    if (!entry || entry.operation !== 'PUT') return undefined;
    try {
      const owner = entry.json<LeaseOwner>();
      return { id: owner.id, url: owner.url, revision: entry.revision };
    } catch {
      return undefined;
    }
  }

  /** Gives `city`'s lease up (when we hold it): revision-checked, so never someone else's. Never throws. */
  async release(city: string): Promise<void> {
    const held = this.#held.get(city);
    this.#held.delete(city);
    if (!held) return;
    await this.kv.delete(city, { previousSeq: held.revision }).catch(() => undefined);
  }

  /** Forgets every lease without touching the bucket (they expire): a crash as the others see it. */
  dropAll(): void {
    this.#held.clear();
  }

  async #renew(city: string): Promise<void> {
    const held = this.#held.get(city);
    if (!held) return;
    if (this.now() >= held.validUntil) return this.#lose(city, 'expired');
    const sentAt = this.now();
    try {
      const revision = await this.kv.update(city, JSON.stringify(this.me), held.revision);
      // Released meanwhile: the update re-created nothing (it was revision-checked), but drop it again.
      if (this.#held.get(city) !== held) return;
      held.revision = revision;
      held.validUntil = sentAt + this.ttlMs - this.#margin;
    } catch (err) {
      if (this.#held.get(city) !== held) return;
      if (isTaken(err)) return this.#lose(city, 'taken');
      // Unreachable broker: keep trying on the next round until validity runs out.
      if (!isBrokerUnavailable(err) && this.now() >= held.validUntil) this.#lose(city, 'expired');
    }
  }

  #lose(city: string, why: LeaseLoss): void {
    this.#held.delete(city);
    this.onLost(city, why);
  }
}

/** True when a revision-checked write failed because the key holds another revision. Pure. */
function isTaken(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamWrongLastSequence) return true;
  }
  return false;
}
