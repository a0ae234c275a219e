import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type PubAck,
} from '@nats-io/jetstream';
import { nanos, NoRespondersError, nuid } from '@nats-io/nats-core';
import { setTimeout as sleep } from 'node:timers/promises';
import { OutcomeUnknownError, partlyStored, SeqConflictError, UnavailableError } from '../errors.ts';
import { batchMsgId, decodeEvent, encodeBatch, encodeEvent } from './jetstreamCodec.ts';
import { JetStreamConnection } from './jetstreamConnection.ts';
import { isBrokerUnavailable, JOURNAL_UNAVAILABLE, toJournalError } from './jetstreamErrors.ts';
import { streamAddress, type StreamAddress } from './jetstreamNames.ts';
import { isUnanswered } from './jetstreamPublisher.ts';
import { listEvents, unfinishedBatch } from './jetstreamRead.ts';
import { JetStreamSubscription } from './jetstreamSubscription.ts';
import type {
  AppendOptions,
  JournalDraft,
  Journal,
  JournalBackend,
  JournalEvent,
  ListFilter,
  LogLocation,
  SubscribeOptions,
  Subscription,
} from './journal.ts';
import { SharedTail } from './sharedTail.ts';

/** How a `JetStreamJournalBackend` reaches its broker. */
export interface JetStreamJournalOptions {
  /** NATS server URL(s), comma-separated: `nats://127.0.0.1:4222`. */
  servers: string;
  /** Namespace of stream names and subjects (default `gc`: streams `GC_…`, subjects `gc.ev.…`). */
  prefix?: string;
  /** How long one broker request may take before it counts as unavailable (default 5000 ms). */
  requestTimeoutMs?: number;
  /**
   * How long an append whose publish got no answer keeps trying to learn whether it was stored before
   * it answers `OutcomeUnknownError` (default: `requestTimeoutMs`).
   */
  resolveTimeoutMs?: number;
  /** Replicas of every stream it creates (1, 3 or 5; default 1): 3 on a three-node cluster survives a node. */
  replicas?: number;
}

/** Retried appends with the same `msgId` within this window are stored once (JetStream dedupe). */
const DUPLICATE_WINDOW_MS = 2 * 60_000;

/**
 * One log in one JetStream stream: the stream sequence is the event seq, appends carry `Nats-Msg-Id`
 * and, when fenced, `Nats-Expected-Last-Sequence`. Open it through `JetStreamJournalBackend.open`.
 * Dedupe by `msgId` holds within the stream's duplicate window (two minutes), across restarts of the
 * broker and of the supervisor.
 */
export class JetStreamJournal implements Journal {
  readonly #subscriptions = new Set<JetStreamSubscription>();
  /** One consumer for every read-only subscriber (the SSE streams of this log). */
  readonly #tail = new SharedTail({ subscribe: (seq) => this.subscribe(seq), list: (f) => this.list(f) });
  #closed = false;

  /** @internal Built by the backend once the stream exists. */
  constructor(
    readonly name: string,
    readonly address: StreamAddress,
    private readonly conn: JetStreamConnection,
    private readonly timeoutMs: number,
    private readonly resolveMs: number,
    private readonly onClose: (journal: JetStreamJournal) => void,
  ) {}

  /**
   * Publishes the event and resolves once JetStream has stored it. A retry with the same `msgId`
   * resolves with the event first stored under it. Every answer is the truth about the write:
   * - `SeqConflictError` (stale `expectedSeq`) and `UnavailableError` (closed, or no broker to send to)
   *   are refusals: the event is not stored and never will be;
   * - a publish sent but not answered in time is resolved before answering (see `#resolve`), and
   *   `OutcomeUnknownError` when that fails within `resolveTimeoutMs`: the event may be stored, or land
   *   later (retry with the same `msgId`).
   */
  async append(draft: JournalDraft, options: AppendOptions = {}): Promise<JournalEvent> {
    this.#assertOpen();
    const { body, withSeq } = encodeEvent(draft, draft.ts ?? new Date().toISOString());
    // Always an id, so an unanswered publish can be resolved through the stream's dedupe.
    return this.#publish(
      body,
      { msgId: options.msgId ?? nuid.next(), expectedSeq: options.expectedSeq },
      withSeq,
    );
  }

  /**
   * Appends one decision's records so that they land all or none (see `BatchMark`): published one by one,
   * each fenced on the one before, each under `<id>:<index>`; the first carries the rest. Readers see
   * none of them until the last is stored; a batch cut short by a crash or an outage is finished from
   * its first message by the next writer (on its fencing conflict) or the next open, never dropped.
   * @throws as {@link append} for the first message (nothing stored); OutcomeUnknownError when a later
   *   one fails: the batch is in the log and will be finished, so it is no refusal.
   */
  async appendBatch(drafts: readonly JournalDraft[], options: AppendOptions = {}): Promise<JournalEvent[]> {
    this.#assertOpen();
    if (drafts.length <= 1) return drafts.length === 0 ? [] : [await this.append(drafts[0]!, options)];
    const id = options.msgId ?? nuid.next();
    const { bodies, withSeq } = encodeBatch(drafts, new Date().toISOString(), id);
    const at = (first: number, i: number) => withSeq(first)[i]!;
    const first = await this.#publish(
      bodies[0]!,
      { msgId: batchMsgId(id, 0), expectedSeq: options.expectedSeq },
      (seq) => at(seq, 0),
    );
    // Once the first is stored the rest are pipelined (one socket write, one round trip): each is fenced
    // on the one before, so none can land out of place, and a copy finishing the batch only duplicates.
    const rest = bodies.slice(1).map((body, k) => {
      const i = k + 1;
      const publish = { msgId: batchMsgId(id, i), expectedSeq: first.seq + i - 1 };
      return this.#publish(body, publish, () => at(first.seq, i));
    });
    const settled = await Promise.allSettled(rest);
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) {
      await this.#finishUnfinished().catch(() => undefined);
      throw partlyStored(this.name, failed.reason);
    }
    return [first, ...settled.map((r) => (r as PromiseFulfilledResult<JournalEvent>).value)];
  }

  /**
   * Publishes the rest of a batch whose writer stopped after its first message(s), from the copy the
   * first message carries and under the same msg ids, so a writer still publishing it only meets
   * duplicates. Effects: stream info, direct gets, publishes. Throws what a publish throws.
   */
  async #finishUnfinished(): Promise<void> {
    const last = (await this.conn.jsm.streams.info(this.address.stream)).state.last_seq;
    const unfinished = await unfinishedBatch(this.conn.jsm, this.address.stream, last);
    if (!unfinished) return;
    const { start, first } = unfinished;
    const rest = first.rest ?? [];
    for (let i = last - start + 1; i < first.size && i - 1 < rest.length; i++) {
      const body = rest[i - 1]!;
      const publish = { msgId: batchMsgId(first.id, i), expectedSeq: start + i - 1 };
      await this.#publish(body, publish, (seq) => decodeEvent(seq, body), true);
    }
  }

  /** Finishes a batch a crashed writer left behind, so readers of this log are not held back by it. */
  async finishUnfinishedBatch(): Promise<void> {
    await this.#finishUnfinished();
  }

  async #publish(
    body: string,
    publish: { msgId: string; expectedSeq: number | undefined },
    withSeq: (seq: number) => JournalEvent,
    finishing = false,
  ): Promise<JournalEvent> {
    try {
      if (!this.conn.connected) await this.#connected();
      const ack = await this.conn.publisher.publish(this.address.subject, body, publish);
      return await this.#stored(ack, withSeq);
    } catch (err) {
      if (isUnanswered(err)) return this.#resolve(body, publish, withSeq, err);
      const mapped = await toJournalError(err, this.name, publish.expectedSeq, () => this.head());
      // The head may be an unfinished batch: finish it, so the caller's catch-up finds it whole.
      if (mapped instanceof SeqConflictError && !finishing)
        await this.#finishUnfinished().catch(() => undefined);
      throw mapped;
    }
  }

  /**
   * Learns what became of a publish that was sent but not answered, by publishing it again with the same
   * msg id and fence until the stream answers: a duplicate (the first copy is stored: its event), stored
   * now (the first copy never will be: the id is taken), or a stale fence (`SeqConflictError`; the first
   * copy carries the same fence and the head only grows, so it can never be stored either). The stream
   * checks the msg id before the fence (nats-server 2.9.10 and later), so a stored first copy is never
   * mistaken for a conflict. Gives up with `OutcomeUnknownError` after `resolveMs`.
   */
  async #resolve(
    body: string,
    publish: { msgId: string; expectedSeq: number | undefined },
    withSeq: (seq: number) => JournalEvent,
    unanswered: unknown,
  ): Promise<JournalEvent> {
    const deadline = Date.now() + this.resolveMs;
    let last = unanswered;
    for (let left = this.resolveMs; left > 0 && !this.#closed; left = deadline - Date.now()) {
      try {
        await this.conn.whenConnected(left, this.name);
        const ack = this.conn.publisher.publish(this.address.subject, body, publish);
        return await this.#stored(await beforeDeadline(ack, deadline), withSeq);
      } catch (err) {
        last = err;
        // The stream's refusal of the copy is one of the first copy too (same id, same fence), except
        // "not now"; anything else (no answer, not sent, no broker) says nothing about the first copy.
        if (err instanceof JetStreamApiError && !isBrokerUnavailable(err)) {
          throw await toJournalError(err, this.name, publish.expectedSeq, () => this.head());
        }
        // No responders: JetStream is still starting; the next copy goes out a little later.
        if (err instanceof NoRespondersError) {
          await sleep(Math.min(100, Math.max(0, deadline - Date.now())));
        }
      }
    }
    throw new OutcomeUnknownError(
      `journal ${this.name}: the NATS broker did not confirm the append within ` +
        `${this.timeoutMs + this.resolveMs} ms`,
      { cause: last },
    );
  }

  async #stored(ack: PubAck, withSeq: (seq: number) => JournalEvent): Promise<JournalEvent> {
    if (ack.duplicate) return (await this.#get(ack.seq)) ?? withSeq(ack.seq);
    return withSeq(ack.seq);
  }

  /** See `Journal.list`. Throws `UnavailableError` when the broker cannot serve. */
  async list(filter?: ListFilter): Promise<JournalEvent[]> {
    this.#assertOpen();
    try {
      await this.#connected();
      return await listEvents(this.#readContext(), filter);
    } catch (err) {
      throw await toJournalError(err, this.name, undefined, async () => 0);
    }
  }

  /** The stream's last sequence (0 when empty). Throws `UnavailableError` when the broker cannot serve. */
  async head(): Promise<number> {
    this.#assertOpen();
    try {
      await this.#connected();
      const last = (await this.conn.jsm.streams.info(this.address.stream)).state.last_seq;
      // An unfinished batch is not in the log yet (see `appendBatch`).
      const unfinished = await unfinishedBatch(this.conn.jsm, this.address.stream, last);
      return unfinished ? unfinished.start - 1 : last;
    } catch (err) {
      throw await toJournalError(err, this.name, undefined, async () => 0);
    }
  }

  /**
   * Subscribes from `afterSeq` through an ordered consumer (see `JetStreamSubscription`); it survives
   * broker restarts and is deleted on `close()`. Read-only subscribers share one such consumer
   * (`SharedTail`), catching up by pages first.
   */
  subscribe(afterSeq: number, options?: SubscribeOptions): Subscription {
    this.#assertOpen();
    if (options?.readOnly) return this.#tail.subscribe(afterSeq);
    const sub = new JetStreamSubscription(
      {
        js: this.conn.js,
        log: this.name,
        stream: this.address.stream,
        connected: () => this.#connected(),
        head: () => this.head(),
      },
      afterSeq,
      (s) => this.#subscriptions.delete(s),
    );
    this.#subscriptions.add(sub);
    return sub;
  }

  /**
   * Live resources a closed subscriber must not leave behind: open subscriptions plus the consumers the
   * server holds on this log's stream. Effects: one stream info request.
   */
  async liveResources(): Promise<number> {
    const info = await this.conn.jsm.streams.info(this.address.stream);
    return this.#subscriptions.size + info.state.consumer_count;
  }

  /** Closes every subscription (deleting their consumers); the stream and its events stay. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.onClose(this);
    await Promise.all([this.#tail.close(), ...[...this.#subscriptions].map((s) => s.close())]);
  }

  #assertOpen(): void {
    // The file backend's answer too: over HTTP a request racing shutdown gets a 503, not a 500.
    if (this.#closed) throw new UnavailableError(`journal ${this.name} is closed`, JOURNAL_UNAVAILABLE);
  }

  #connected(): Promise<void> {
    return this.conn.whenConnected(this.timeoutMs, this.name);
  }

  #readContext() {
    const { js, jsm } = this.conn;
    return { js, jsm, log: this.name, stream: this.address.stream, timeoutMs: this.timeoutMs };
  }

  async #get(seq: number): Promise<JournalEvent | undefined> {
    const m = await this.conn.jsm.direct.getMessage(this.address.stream, { seq }).catch(() => null);
    return m ? decodeEvent(m.seq, m.string()) : undefined;
  }
}

/**
 * Opens journals in JetStream, one stream per log, over one NATS connection per backend that
 * reconnects forever. A request made while the broker is away waits for the reconnect up to
 * `requestTimeoutMs`, then fails with `UnavailableError`; subscriptions resume on their own.
 * Works with nats-server 2.9.10 and newer: no batch publish, no per-message TTL, no consumer filters.
 *
 * @example
 * const backend = new JetStreamJournalBackend({ servers: 'nats://127.0.0.1:4222' });
 * const journal = await backend.open({ name: 'bright-lights', file: '/cities/bright-lights/.gc/events.jsonl' });
 * await journal.append({ type: 'city.created', actor: 'supervisor' }, { expectedSeq: 0 });
 */
export class JetStreamJournalBackend implements JournalBackend {
  readonly kind = 'jetstream';
  readonly #journals = new Map<string, Promise<JetStreamJournal>>();
  readonly #timeoutMs: number;
  readonly #resolveMs: number;
  #connection: Promise<JetStreamConnection> | undefined;
  #closed = false;

  constructor(private readonly options: JetStreamJournalOptions) {
    this.#timeoutMs = options.requestTimeoutMs ?? 5000;
    this.#resolveMs = options.resolveTimeoutMs ?? this.#timeoutMs;
    // Validates the prefix now rather than at the first open.
    streamAddress('/', options.prefix);
  }

  /**
   * Opens the log at `location`, creating its stream when it does not exist yet; the same file always
   * maps to the same stream, and opening it twice on one backend yields the same journal.
   * Effects: connects on first use; may create a stream. Throws `UnavailableError` when the broker
   * cannot be reached or after `close()`.
   */
  async open(location: LogLocation): Promise<Journal> {
    if (this.#closed) throw new UnavailableError('jetstream journal backend is closed', JOURNAL_UNAVAILABLE);
    const address = streamAddress(location.file, this.options.prefix);
    let journal = this.#journals.get(address.stream);
    if (!journal) {
      journal = this.#open(location.name, address);
      this.#journals.set(address.stream, journal);
      // A failed open must not be cached: the next call tries again.
      journal.catch(() => this.#journals.delete(address.stream));
    }
    return journal;
  }

  /** Closes every journal it opened, then the connection. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const opened = await Promise.allSettled([...this.#journals.values()]);
    await Promise.all(opened.flatMap((j) => (j.status === 'fulfilled' ? [j.value.close()] : [])));
    const conn = await this.#connection?.catch(() => undefined);
    await conn?.close();
  }

  async #open(name: string, address: StreamAddress): Promise<JetStreamJournal> {
    const conn = await this.#connect();
    try {
      await conn.whenConnected(this.#timeoutMs, name);
      await ensureStream(conn.jsm, address, this.options.replicas ?? 1);
    } catch (err) {
      throw await toJournalError(err, name, undefined, async () => 0);
    }
    // A closed journal leaves the cache, so opening its location again gives a fresh one.
    const journal = new JetStreamJournal(name, address, conn, this.#timeoutMs, this.#resolveMs, () =>
      this.#journals.delete(address.stream),
    );
    // Best effort: if the broker refuses now, the next writer's fencing conflict finishes it.
    await journal.finishUnfinishedBatch().catch(() => undefined);
    return journal;
  }

  #connect(): Promise<JetStreamConnection> {
    if (!this.#connection) {
      const connection = JetStreamConnection.open(this.options.servers, this.#timeoutMs);
      // A failed connect is not cached: the next open tries again.
      connection.catch(() => {
        if (this.#connection === connection) this.#connection = undefined;
      });
      this.#connection = connection;
    }
    return this.#connection;
  }
}

/** The deadline of `#resolve` passed while a copy was still unanswered. */
class DeadlineError extends Error {
  override name = 'DeadlineError';
}

/**
 * `promise`, or a `DeadlineError` at `deadline` (epoch ms), whichever comes first; a late rejection of
 * `promise` is swallowed (the publisher times it out on its own).
 */
function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError()), Math.max(0, deadline - Date.now()));
  });
  promise.catch(() => undefined);
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** Creates the log's stream unless it exists; two supervisors racing here both succeed. */
async function ensureStream(jsm: JetStreamManager, address: StreamAddress, replicas: number): Promise<void> {
  try {
    await jsm.streams.info(address.stream);
    return;
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
  }
  await jsm.streams.add({
    name: address.stream,
    subjects: [address.subject],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    num_replicas: replicas,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    // Direct get serves reads by seq; denying delete and purge keeps seqs gap-free for good.
    allow_direct: true,
    deny_delete: true,
    deny_purge: true,
  });
}

/**
 * The harness hook of the conformance suite: live subscriptions and server-side consumers of a
 * journal opened by `JetStreamJournalBackend`. Throws `TypeError` for any other journal.
 */
export function jetStreamLiveResources(journal: Journal): Promise<number> {
  if (!(journal instanceof JetStreamJournal)) throw new TypeError('not a jetstream journal');
  return journal.liveResources();
}
