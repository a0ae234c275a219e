import type { Consumer, ConsumerMessages, JetStreamClient } from '@nats-io/jetstream';
import { continues, decodeMessage } from './jetstreamCodec.ts';
import { toJournalError } from './jetstreamErrors.ts';
import type { JournalEvent, Subscription } from './journal.ts';

/** How many messages one pull asks for: enough to replay fast, small enough to stay in memory. */
const PULL_BATCH = 512;

/** What a subscription needs from its journal. */
export interface SubscriptionContext {
  readonly js: JetStreamClient;
  readonly log: string;
  readonly stream: string;
  /** Resolves once the client is connected; throws `UnavailableError` when it stays away. */
  connected(): Promise<void>;
  head(): Promise<number>;
}

/**
 * A journal subscription backed by a JetStream ordered consumer that starts at `afterSeq + 1`
 * (deliver by start sequence). Events at or below the last one yielded are dropped, which rules out
 * duplicates and also covers the server clamping a start beyond the head back to `head + 1`.
 *
 * When the broker restarts, its ephemeral consumers are gone and nats.js recreates the ordered consumer
 * by itself, but keeps the pull accounting of the old one: with a batch outstanding when the connection
 * dropped, the new consumer is asked for only the few messages left over and then waits for the
 * heartbeat monitor, a stall of tens of seconds or more. So a recreated consumer is replaced at once by
 * a fresh `consume()` from the last seq yielded, which starts with clean accounting; nothing is lost or
 * repeated because the cursor is ours.
 *
 * Effects: creates the consumer at once (so it is ready when events flow); `close()`, or iteration
 * ending any other way (`break`, an error), stops it and deletes it on the server. Iteration throws
 * `UnavailableError` when the consumer cannot be created.
 */
export class JetStreamSubscription implements Subscription {
  #closed = false;
  #last: number;
  /** The consumer being read; replaced when the broker recreated it. */
  #live: Promise<Live | undefined>;
  readonly #iterator: AsyncGenerator<JournalEvent>;
  #closing: Promise<void> | undefined;
  #releasing: Promise<void> | undefined;

  constructor(
    private readonly ctx: SubscriptionContext,
    afterSeq: number,
    private readonly onClose: (sub: JetStreamSubscription) => void,
  ) {
    this.#last = afterSeq;
    this.#live = this.#start(afterSeq);
    // A subscriber that never iterates must not turn a failed start into an unhandled rejection.
    this.#live.catch(() => {});
    this.#iterator = this.#iterate();
  }

  async #start(afterSeq: number): Promise<Live | undefined> {
    let consumer: Consumer;
    let messages: ConsumerMessages;
    try {
      await this.ctx.connected();
      consumer = await this.ctx.js.consumers.get(this.ctx.stream, { opt_start_seq: afterSeq + 1 });
      messages = await consumer.consume({ max_messages: PULL_BATCH });
    } catch (err) {
      throw await toJournalError(err, this.ctx.log, undefined, () => this.ctx.head());
    }
    if (this.#closed) {
      await release(consumer, messages);
      return undefined;
    }
    const live: Live = { consumer, messages, recreated: false };
    void watchRecreated(live);
    return live;
  }

  async *#iterate(): AsyncGenerator<JournalEvent> {
    try {
      for (;;) {
        const live = await this.#live;
        if (!live) return;
        // The messages of a batch are held back until its last one arrives: all or none.
        let held: JournalEvent[] = [];
        let seen = this.#last;
        for await (const m of live.messages) {
          if (m.seq <= seen) continue;
          seen = m.seq;
          const { event, batch } = decodeMessage(m.seq, m.string());
          held.push(event);
          if (continues(batch)) continue;
          const ready = held;
          held = [];
          for (const e of ready) {
            this.#last = e.seq;
            yield e;
          }
        }
        if (this.#closed || !live.recreated) return;
        await release(live.consumer, live.messages);
        // Held messages come again from the new consumer, which starts after the last one yielded.
        this.#live = this.#start(this.#last);
      }
    } catch (err) {
      if (this.#closed) return;
      throw await toJournalError(err, this.ctx.log, undefined, () => this.ctx.head());
    } finally {
      // However iteration ends (close, a `break` in the caller's loop, an error), the consumer goes too.
      await this.#release();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<JournalEvent> {
    return this.#iterator;
  }

  /** The seq of the last event yielded (the `afterSeq` it started from before any). */
  get lastSeq(): number {
    return this.#last;
  }

  /**
   * Ends iteration (a pending `next()` resolves done) and deletes the consumer on the server; when
   * the broker is unreachable the consumer is left to its inactivity threshold. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const released = this.#release();
      // `return()` ends a generator parked at `yield`; one parked on the message queue ends as soon as
      // `stop()` wakes that queue, and `return()` then resolves after it.
      await this.#iterator.return(undefined);
      await released;
    })();
    return this.#closing;
  }

  /** Marks the subscription closed and releases its consumer; never waits on the iterator. Idempotent. */
  #release(): Promise<void> {
    this.#releasing ??= (async () => {
      this.#closed = true;
      this.onClose(this);
      const live = await this.#live.catch(() => undefined);
      if (live) await release(live.consumer, live.messages);
    })();
    return this.#releasing;
  }
}

interface Live {
  consumer: Consumer;
  messages: ConsumerMessages;
  /** Set when nats.js recreated the consumer: its queue is then stopped so the subscription starts anew. */
  recreated: boolean;
}

/** Stops `live`'s queue (ending its iteration) as soon as nats.js reports the consumer recreated. */
async function watchRecreated(live: Live): Promise<void> {
  try {
    for await (const status of live.messages.status()) {
      if (status.type === 'ordered_consumer_recreated') {
        live.recreated = true;
        live.messages.stop();
        return;
      }
    }
  } catch {
    // The status feed ends with the queue; nothing to watch any more.
  }
}

/**
 * Stops the message queue (unsubscribes, cancels timers) and deletes the consumer. Not `close()`:
 * that waits for the queue's iterator to drain, which never happens when nobody is iterating.
 */
async function release(consumer: Consumer, messages: ConsumerMessages): Promise<void> {
  messages.stop();
  // Best effort: an ephemeral consumer the server cannot delete now expires by itself.
  await consumer.delete().catch(() => false);
}
