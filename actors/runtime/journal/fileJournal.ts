import { mkdir, open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SeqConflictError, UnavailableError, ValidationError } from '../errors.ts';
import { defaultLogger, type Logger } from '../logger.ts';
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
import { journalUnavailable, LogReader, type ReplayOptions } from './logReader.ts';
import { recoverLog } from './logRecovery.ts';
import { LogWriter } from './logWriter.ts';
import type { WriteFn } from './logWriter.ts';
import type { OffsetIndex } from './offsetIndex.ts';
import { Notifier } from './notifier.ts';
import { RecentEvents } from './recentEvents.ts';

/** Options of the file backend, shared by every log it opens. */
export interface FileJournalOptions {
  /**
   * When an append counts as durable.
   * - `'never'` (default): each batch of appends is handed to the kernel with one `write()` before the
   *   appends resolve. The events survive the process dying (SIGKILL, OOM kill, crash), not a power loss
   *   or kernel panic before the page cache is written back.
   * - `'batch'`: additionally one `fdatasync()` per batch before the appends resolve (and an fsync of the
   *   log's directory on open), so they survive a power loss too. Group commit keeps this to one disk
   *   flush per batch, not per event.
   */
  fsync?: 'never' | 'batch';
  /**
   * Receives recovery warnings (torn tail truncated, corrupt lines skipped). Default: a warning through
   * `logger`.
   */
  warn?: (message: string) => void;
  /** Where the default `warn` logs (default: the shared default logger). */
  logger?: Logger;
  /**
   * @internal Test seam for write failures: appends `data` to the log and resolves with the bytes written.
   * Default: one `write()` on the log's O_APPEND handle.
   */
  writer?: WriteFn;
}

/** How many recent msg ids an open log remembers for dedupe. */
export const MSG_ID_WINDOW = 10_000;
/** Appends written together at most; bounds the memory and latency of one group commit. */
const MAX_BATCH = 4096;

/** One queued append: one draft, or the drafts of one atomic batch. */
interface Pending {
  drafts: readonly JournalDraft[];
  options: AppendOptions;
  resolve(events: JournalEvent[]): void;
  reject(err: unknown): void;
}

/** The stored form of a draft, fields in line order (seq, type, ts, actor, subject?, message?, payload?). */
function stored(draft: JournalDraft, seq: number): JournalEvent {
  const event: JournalEvent = {
    seq,
    type: draft.type,
    ts: draft.ts ?? new Date().toISOString(),
    actor: draft.actor,
  };
  if (draft.subject !== undefined) event.subject = draft.subject;
  if (draft.message !== undefined) event.message = draft.message;
  if (draft.payload !== undefined) event.payload = draft.payload;
  return event;
}

/** Makes a just-created file's directory entry durable, which fdatasync on the file alone does not. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function settle(batch: Pending[], outcomes: Array<JournalEvent[] | Error>): void {
  batch.forEach((p, i) => {
    const outcome = outcomes[i]!;
    if (outcome instanceof Error) p.reject(outcome);
    else p.resolve(outcome);
  });
}

/**
 * A journal kept as a JSONL file, one event per line, appended through one O_APPEND handle.
 *
 * - Appends never read the file: the head and an offset index (seq → byte offset) are built by one scan
 *   on open. Concurrent appends are group-committed: queued, sequenced (and fenced) in order, written with
 *   one `write()` per batch, then resolved. A failed write is cut back so no half line remains.
 * - Reads (`list`, subscriptions) seek through the index and read in chunks, so memory stays bounded.
 * - Subscribers are woken in-process by appends; nothing polls.
 * - msg id dedupe remembers the last {@link MSG_ID_WINDOW} ids for the lifetime of the process only: ids
 *   are not stored in the line, so a retry after a restart is appended again.
 * - One process owns a log file at a time (the supervisor); other writers are not detected.
 */
export class FileJournal implements Journal {
  readonly #notifier = new Notifier();
  readonly #msgIds = new Map<string, JournalEvent[]>();
  readonly #subscriptions = new Set<Subscription>();
  readonly #reads = new Set<Promise<unknown>>();
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  readonly #handle: FileHandle;
  readonly #index: OffsetIndex;
  readonly #writer: LogWriter;
  readonly #reader: LogReader;
  readonly #recent = new RecentEvents();

  private constructor(
    readonly name: string,
    readonly file: string,
    handle: FileHandle,
    index: OffsetIndex,
    size: number,
    options: FileJournalOptions,
  ) {
    this.#handle = handle;
    this.#index = index;
    this.#writer = new LogWriter(handle, size, options);
    this.#reader = new LogReader(handle, index, file, () => this.#writer.size, this.#recent);
  }

  /**
   * Opens (creating it and its parent directories if needed) and recovers the log at `location.file`.
   * Effects: one sequential read of the file; may truncate a torn last line and warn.
   * @throws UnavailableError (`journal_unavailable`) when the file cannot be created, read or repaired.
   */
  static async open(location: LogLocation, options: FileJournalOptions = {}): Promise<FileJournal> {
    let handle: FileHandle | undefined;
    try {
      await mkdir(dirname(location.file), { recursive: true });
      handle = await open(location.file, 'a+');
      const warn =
        options.warn ?? ((message: string) => (options.logger ?? defaultLogger()).warn({}, message));
      const { index, size } = await recoverLog(handle, location.file, warn);
      if (options.fsync === 'batch') await syncDirectory(dirname(location.file));
      return new FileJournal(location.name, location.file, handle, index, size, options);
    } catch (err) {
      await handle?.close().catch(() => undefined);
      throw journalUnavailable(`cannot open journal ${location.file}`, err);
    }
  }

  /**
   * Queues one append; it is written with the other appends queued in the same turn.
   * @throws SeqConflictError when `expectedSeq` differs from the head at the moment the append is
   *   sequenced; UnavailableError when the write fails (nothing is left of it) or the journal is closed;
   *   ValidationError when the event cannot be serialised.
   */
  append(draft: JournalDraft, options: AppendOptions = {}): Promise<JournalEvent> {
    return this.appendBatch([draft], options).then((events) => events[0]!);
  }

  /**
   * Queues the drafts of one decision; they are sequenced together and written in the same `write()` as
   * the other appends queued in that turn, so a crash of the process stores all of them or none (one
   * `write()` to a regular file is not torn by the writer's death). `expectedSeq` fences the first draft,
   * `msgId` dedupes the whole batch. Same errors as {@link append}.
   */
  appendBatch(drafts: readonly JournalDraft[], options: AppendOptions = {}): Promise<JournalEvent[]> {
    if (this.#closing) return Promise.reject(this.#closedError());
    if (options.msgId !== undefined) {
      const seen = this.#msgIds.get(options.msgId);
      if (seen) return Promise.resolve(seen);
    }
    if (drafts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.#queue.push({ drafts, options, resolve, reject });
      this.#flushing ??= this.#drain();
    });
  }

  /**
   * Lists matching events, seeking by seq through the index; `order: 'desc'` reads backwards from the end.
   * @throws UnavailableError when the file cannot be read or the journal is closed.
   */
  list(filter: ListFilter = {}): Promise<JournalEvent[]> {
    if (this.#closing) return Promise.reject(this.#closedError());
    const read = this.#reader.list(filter);
    this.#reads.add(read);
    const forget = () => void this.#reads.delete(read);
    read.then(forget, forget);
    return read;
  }

  /**
   * Hands `visit` each event with `afterSeq` < seq ≤ `toSeq` and its line's byte offset, one at a time,
   * none kept: the replay of a large log at start-up (see `LogReader.replay` for `options`).
   * @throws UnavailableError when the file cannot be read or the journal is closed; what `visit` throws.
   */
  replay<T extends { seq: number }>(
    afterSeq: number,
    toSeq: number,
    visit: (record: JournalEvent | T, offset: number) => void,
    options: ReplayOptions<T> = {},
  ): Promise<void> {
    if (this.#closing) return Promise.reject(this.#closedError());
    const read = this.#reader.replay(afterSeq, toSeq, visit, options);
    this.#reads.add(read);
    const forget = () => void this.#reads.delete(read);
    read.then(forget, forget);
    return read;
  }

  async head(): Promise<number> {
    return this.#index.head;
  }

  /**
   * Follows the log from `afterSeq`: past events are read from the file, live ones as appends wake it.
   * @throws (from iteration) UnavailableError when the file cannot be read.
   */
  subscribe(afterSeq: number, options: SubscribeOptions = {}): Subscription {
    let closed = this.#closing !== undefined;
    const events = this.#reader.follow(afterSeq, this.#notifier, () => closed, options.readOnly === true);
    const subscriptions = this.#subscriptions;
    // However iteration ends (close, a `break` out of for-await, a read error), the subscription is gone.
    // A plain iterator around the reader's: an async generator delegating with `yield*` cost each event
    // of each subscriber another round of promises (a tenth of a 1,000-stream fan-out's CPU).
    const forget = (): void => {
      closed = true;
      subscriptions.delete(subscription);
    };
    const it: Required<AsyncIterator<JournalEvent, undefined>> = {
      next: () =>
        events.next().then(
          (result) => {
            if (result.done) forget();
            return result;
          },
          (err: unknown) => {
            forget();
            throw err;
          },
        ),
      return: (value?: undefined) => {
        forget();
        return events.return(value);
      },
      throw: (err: unknown) => {
        forget();
        return events.throw(err);
      },
    };
    const subscription: Subscription = {
      [Symbol.asyncIterator]: () => it,
      close: async () => {
        closed = true;
        this.#subscriptions.delete(subscription);
        // Releases this subscriber's wait; the others re-check the head and wait again.
        this.#notifier.notify();
        await it.return(undefined);
      },
    };
    if (!closed) this.#subscriptions.add(subscription);
    return subscription;
  }

  /** Finishes queued appends, ends every subscription and closes the file. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  /** True once `close()` has been called: the log takes no more appends or reads. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** Open subscriptions plus pending waits: what a closed subscriber must not leave behind (for tests). */
  liveResources(): number {
    return this.#subscriptions.size + this.#notifier.waiting;
  }

  async #shutdown(): Promise<void> {
    await this.#flushing;
    this.#notifier.close();
    await Promise.all([...this.#subscriptions].map((s) => s.close()));
    await Promise.allSettled(this.#reads);
    await this.#handle.close();
  }

  #closedError(): UnavailableError {
    return new UnavailableError(`journal ${this.name} is closed`, 'journal_unavailable');
  }

  async #drain(): Promise<void> {
    // Lets the appends issued in the same turn join the first batch.
    await Promise.resolve();
    while (this.#queue.length > 0) {
      let batch = this.#queue;
      if (batch.length > MAX_BATCH) batch = batch.splice(0, MAX_BATCH);
      else this.#queue = [];
      await this.#commit(batch);
    }
    this.#flushing = undefined;
  }

  /** Sequences, writes and settles one batch. Never throws: every failure settles its appends. */
  async #commit(batch: Pending[]): Promise<void> {
    let head = this.#index.head;
    const outcomes: Array<JournalEvent[] | Error> = [];
    const fresh: JournalEvent[] = [];
    const lines: string[] = [];
    const freshIds = new Map<string, JournalEvent[]>();
    for (const { drafts, options } of batch) {
      const { msgId, expectedSeq } = options;
      const seen = msgId === undefined ? undefined : (this.#msgIds.get(msgId) ?? freshIds.get(msgId));
      if (seen) {
        outcomes.push(seen);
        continue;
      }
      if (expectedSeq !== undefined && expectedSeq !== head) {
        outcomes.push(new SeqConflictError(this.name, expectedSeq, head));
        continue;
      }
      const events = drafts.map((draft, i) => stored(draft, head + 1 + i));
      let encoded: string[];
      try {
        encoded = events.map((event) => JSON.stringify(event) + '\n');
      } catch (err) {
        outcomes.push(new ValidationError('event is not serialisable as JSON', null, { cause: err }));
        continue;
      }
      head += events.length;
      lines.push(...encoded);
      fresh.push(...events);
      outcomes.push(events);
      if (msgId !== undefined) freshIds.set(msgId, events);
    }
    if (fresh.length > 0) {
      const lengths = lines.map((l) => Buffer.byteLength(l));
      const bytes = lengths.reduce((a, b) => a + b, 0);
      try {
        await this.#writer.write(Buffer.from(lines.join('')));
      } catch (err) {
        // Nothing of this batch is stored. Conflicts fail alike: they may have been judged against
        // events of this batch that never landed.
        const failure = journalUnavailable(`cannot append to journal ${this.file}`, err);
        const unwritten = new Set<JournalEvent>(fresh);
        outcomes.forEach((outcome, i) => {
          const lost = Array.isArray(outcome)
            ? unwritten.has(outcome[0]!)
            : outcome instanceof SeqConflictError;
          if (lost) outcomes[i] = failure;
        });
        settle(batch, outcomes);
        return;
      }
      let offset = this.#writer.size - bytes;
      fresh.forEach((event, i) => {
        this.#index.push(event.seq, offset);
        this.#recent.push(event.seq, lines[i]!);
        offset += lengths[i]!;
      });
      for (const [id, events] of freshIds) this.#remember(id, events);
      this.#notifier.notify();
    }
    settle(batch, outcomes);
  }

  #remember(id: string, events: JournalEvent[]): void {
    this.#msgIds.set(id, events);
    if (this.#msgIds.size > MSG_ID_WINDOW) this.#msgIds.delete(this.#msgIds.keys().next().value!);
  }
}

/**
 * The embedded default backend: each log is a JSONL file at its location's `file` (for a city,
 * `<city dir>/.gc/events.jsonl`). Opening the same file twice answers the same journal.
 */
export class FileJournalBackend implements JournalBackend {
  readonly kind = 'file';
  readonly #logs = new Map<string, Promise<FileJournal>>();

  constructor(readonly options: FileJournalOptions = {}) {}

  /**
   * Opens (creating if needed) the log at `location.file`; see {@link FileJournal.open}.
   * @throws UnavailableError (`journal_unavailable`) when the file cannot be created or read.
   */
  async open(location: LogLocation): Promise<FileJournal> {
    const key = resolve(location.file);
    const cached = this.#logs.get(key);
    if (cached) {
      const log = await cached.catch(() => undefined);
      // A closed log (a rolled-back create, an unregistered city) is opened afresh, never handed back:
      // its file may have been removed and recreated since.
      if (log && !log.closed) return log;
      const now = this.#logs.get(key);
      if (now && now !== cached) return now;
    }
    const log = FileJournal.open(location, this.options);
    this.#logs.set(key, log);
    log.catch(() => this.#logs.delete(key));
    return log;
  }

  /** Closes every log it opened (finishing their queued appends). */
  async close(): Promise<void> {
    const logs = [...this.#logs.values()];
    this.#logs.clear();
    await Promise.all(logs.map(async (log) => (await log.then(undefined, () => undefined))?.close()));
  }
}
