import { JetStreamApiError, PubHeaders, type ApiError, type PubAck } from '@nats-io/jetstream';
import {
  ClosedConnectionError,
  ConnectionError,
  createInbox,
  headers,
  NoRespondersError,
  TimeoutError,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/nats-core';

/** What one publish carries besides its body. */
export interface PublishOptions {
  /** `Nats-Msg-Id`: JetStream stores a message once per id within the stream's duplicate window. */
  msgId: string;
  /** `Nats-Expected-Last-Sequence`: the stream rejects the message (10071) unless this is its head. */
  expectedSeq?: number;
}

/**
 * A publish the client refused to send (closed or draining connection, bad argument): the broker never
 * saw it, so it cannot be stored later. `cause` is the client's error.
 */
export class PublishNotSentError extends Error {
  constructor(cause: unknown) {
    super(`publish not sent: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'PublishNotSentError';
  }
}

/**
 * True when `err` failed a publish that was sent but got no answer (the timeout, or the connection
 * dropping or closing meanwhile): the broker may have stored it, or may still. Pure.
 */
export function isUnanswered(err: unknown): boolean {
  return (
    err instanceof TimeoutError || err instanceof ConnectionError || err instanceof ClosedConnectionError
  );
}

interface Pending {
  subject: string;
  deadline: number;
  resolve(ack: PubAck): void;
  reject(err: Error): void;
}

/**
 * Publishes to JetStream and matches the acks on one wildcard inbox (`<inbox>.<n>`), so many appends can
 * be in flight at once cheaply; the same idea as the Go client's `PublishAsync`, which nats.js lacks.
 *
 * Why not `js.publish`: each of its calls is a full request that builds two `Error` objects up front
 * (stack traces included) and arms its own timer, which made it the append's main CPU cost. Here one
 * sweep timer enforces every deadline and errors are built only when something fails; failures surface
 * as the client's own classes (`TimeoutError`, `NoRespondersError`, `JetStreamApiError`), so callers map
 * them exactly as before.
 *
 * Effects: one subscription on the connection; a sweep interval while publishes are pending.
 */
export class JetStreamPublisher {
  readonly #inbox = createInbox();
  readonly #pending = new Map<number, Pending>();
  readonly #sub: Subscription;
  #next = 0;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {
    this.#sub = nc.subscribe(`${this.#inbox}.*`, {
      callback: (err, msg) => (err ? this.failAll(err) : this.#settle(msg)),
    });
  }

  /**
   * Publishes `body` to `subject` and resolves with JetStream's ack. Rejects with `JetStreamApiError`
   * when the stream refuses it (10071 for a stale `expectedSeq`), `NoRespondersError` when no stream
   * listens (JetStream not ready), `PublishNotSentError` when the client would not send it,
   * `TimeoutError` after the timeout, or whatever `failAll` is given (see `isUnanswered`).
   */
  publish(subject: string, body: string, options: PublishOptions): Promise<PubAck> {
    return new Promise((resolve, reject) => {
      const id = ++this.#next;
      const h = headers();
      h.set(PubHeaders.MsgIdHdr, options.msgId);
      if (options.expectedSeq !== undefined)
        h.set(PubHeaders.ExpectedLastSeqHdr, String(options.expectedSeq));
      this.#pending.set(id, { subject, deadline: Date.now() + this.timeoutMs, resolve, reject });
      try {
        this.nc.publish(subject, body, { reply: `${this.#inbox}.${id}`, headers: h });
      } catch (err) {
        this.#pending.delete(id);
        reject(new PublishNotSentError(err));
        return;
      }
      this.#sweeper ??= setInterval(() => this.#sweep(), Math.min(500, Math.max(20, this.timeoutMs / 10)));
    });
  }

  /**
   * Rejects every pending publish with `err`. The connection calls it when it drops: nats.js discards
   * what it had not written yet, and acks that were in flight are lost, so waiting out the timeout would
   * only delay the same answer (the message may or may not be stored; a retry with its msg id is safe).
   */
  failAll(err: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    this.#stopSweeping();
    for (const p of pending) p.reject(err);
  }

  /** Stops listening for acks and rejects what is pending with `err`. */
  close(err: Error): void {
    this.#sub.unsubscribe();
    this.failAll(err);
  }

  #settle(msg: Msg): void {
    const id = Number(msg.subject.slice(this.#inbox.length + 1));
    const p = this.#pending.get(id);
    if (!p) return;
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#stopSweeping();
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      p.reject(new NoRespondersError(p.subject));
      return;
    }
    try {
      const reply = msg.json<PubAck & { error?: ApiError }>();
      if (reply.error) p.reject(new JetStreamApiError(reply.error));
      else if (typeof reply.seq !== 'number') p.reject(new Error(`invalid publish ack: ${msg.string()}`));
      else p.resolve(reply);
    } catch (err) {
      p.reject(err as Error);
    }
  }

  #sweep(): void {
    const now = Date.now();
    // Deadlines grow with insertion order (one timeout for all), so the first live one ends the sweep.
    for (const [id, p] of this.#pending) {
      if (p.deadline > now) break;
      this.#pending.delete(id);
      p.reject(new TimeoutError());
    }
    if (this.#pending.size === 0) this.#stopSweeping();
  }

  #stopSweeping(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}
