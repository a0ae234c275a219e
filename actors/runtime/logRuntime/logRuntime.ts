import { setTimeout as sleep } from 'node:timers/promises';
import { isSeqConflict, UnavailableError } from '../errors.ts';
import type { CustomEventDraft } from '../../../schemas/event.ts';
import type { Journal, JournalEvent, Subscription } from '../journal/journal.ts';
import { appendRecords, stampDraft, type AppendOptions } from './appendRecords.ts';
import type { Decision, LogFolder, SpeculativeDecision, UntypedDecision } from './decision.ts';
import { backoffMs, RETRY_ON_SEQ_CONFLICT, type RetryPolicy } from './retryPolicy.ts';

/** The most decisions one round writes together (bounds a batch's size and a failure's blast radius). */
const MAX_ROUND = 256;

/** A queued group-committable decision (see `runSpeculative`). */
interface Joinable {
  origin: LogFolder;
  decide: () => SpeculativeDecision<unknown>;
  conflicts: number;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

type Task = { kind: 'exclusive'; run(): Promise<void> } | ({ kind: 'joinable' } & Joinable);

export interface LogRuntimeOptions extends AppendOptions {
  retry?: RetryPolicy;
  /** Events read per `list` while folding. */
  pageSize?: number;
  /** Told when following the log fails (it is retried). */
  onError?: (err: unknown) => void;
}

/**
 * The one writer of a log in this process (a city's log, or the supervisor's): it owns the log's head, the
 * fencing of every append (expected last seq), the one retry policy, and the folding of every event into
 * the log's read models. Deciders plug in as `run(decide)`: decisions are taken one after another against
 * the head they will be appended at, and the records of one decision are appended as one atomic batch, so
 * a state change and its notices are never split. A stale head (another process wrote) is handled by
 * folding what it wrote and deciding again.
 */
export class LogRuntime {
  #head: number;
  readonly #queue: Task[] = [];
  #pumping: Promise<void> | undefined;
  readonly #folders = new Set<LogFolder>();
  readonly #retry: RetryPolicy;
  readonly #pageSize: number;
  #subscription: Subscription | undefined;
  #following: Promise<void> | undefined;
  #arrived: JournalEvent[] = [];
  #closed = false;

  /** @param head the seq the log's folders are at (0 for a runtime whose folders attach later). */
  constructor(
    readonly journal: Journal,
    head = 0,
    private readonly options: LogRuntimeOptions = {},
  ) {
    this.#head = head;
    this.#retry = options.retry ?? RETRY_ON_SEQ_CONFLICT;
    this.#pageSize = options.pageSize ?? 10_000;
  }

  /** The seq every attached folder has folded up to. */
  get head(): number {
    return this.#head;
  }

  /**
   * Attaches `folder`, which has folded the log up to `seq`: it is handed the events after `seq` up to the
   * runtime's head (read from the log), then every later one. Effects: reads the log.
   * @throws what the journal throws, and the folder's DamagedRecordError; the folder is not attached then.
   */
  attach(folder: LogFolder, seq: number): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#folders.size === 0 && seq > this.#head) this.#head = seq;
      let start = Math.min(seq, this.#head);
      if (folder.typePrefix !== undefined && seq < this.#head) {
        await this.#catchUpFiltered(folder, folder.typePrefix, seq);
        start = this.#head;
      }
      // One pass to the log's end, each page read once: the new folder takes it from `seq`, the attached
      // ones from the head (a catch-up and then a second read from `seq` parsed a replayed log twice).
      for (let from = start; ;) {
        const page = await this.journal.list({ afterSeq: from, limit: this.#pageSize });
        if (page.length === 0) break;
        const mine = from >= seq ? page : page.filter((e) => e.seq > seq);
        if (mine.length > 0) folder.fold(mine);
        this.#foldNew(page);
        from = page[page.length - 1]!.seq;
      }
      this.#folders.add(folder);
    });
  }

  /** Hands `folder` the events of its family from `seq` to the head (see {@link LogFolder.typePrefix}). */
  async #catchUpFiltered(folder: LogFolder, typePrefix: string, seq: number): Promise<void> {
    const head = this.#head;
    for (let from = seq; from < head;) {
      const page = await this.journal.list({
        afterSeq: from,
        beforeSeq: head + 1,
        limit: this.#pageSize,
        typePrefix,
      });
      if (page.length > 0) folder.fold(page);
      if (page.length < this.#pageSize) break;
      from = page[page.length - 1]!.seq;
    }
    folder.caughtUp?.(head);
  }

  detach(folder: LogFolder): void {
    this.#folders.delete(folder);
  }

  /**
   * Runs `decide` against the head, appends its records as one batch (fenced), folds them into every
   * folder but `origin` (the decider's own model, which `commit` updates), then commits.
   * @throws what the journal throws other than a conflict (nothing is stored then, nothing committed);
   *   SeqConflictError once the policy's retries are spent; OutcomeUnknownError when only part of the
   *   batch was stored (a backend without atomic batches) or the journal cannot tell.
   */
  run<T>(decide: () => Decision<T>, origin?: LogFolder): Promise<T> {
    if (this.#closed) return Promise.reject(new UnavailableError(`log ${this.journal.name} is closed`));
    return this.#enqueue(() => this.#attempt(decide, origin));
  }

  /**
   * Like {@link run}, for a decider whose model can take a decision back: decisions queued together are
   * decided one after another, each applied to the model before the next is taken, and written as one
   * batch (group commit: one file write, one JetStream publish window for the round). No decision is
   * answered before the batch is durable; if it fails, every member is undone and answered with the
   * failure (a fencing conflict first re-decides them, as `run` does). Between apply and durability a
   * reader of the model sees the round's state: the writes are in flight, not yet answered.
   */
  runSpeculative<T>(decide: () => SpeculativeDecision<T>, origin: LogFolder): Promise<T> {
    if (this.#closed) return Promise.reject(new UnavailableError(`log ${this.journal.name} is closed`));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({
        kind: 'joinable',
        origin,
        decide,
        conflicts: 0,
        resolve: resolve,
        reject,
      });
      this.#pump();
    });
  }

  /**
   * Records a user's custom event (the emit route): the one untyped record, through the same fencing.
   * @throws as {@link run}.
   */
  appendCustom(draft: CustomEventDraft): Promise<JournalEvent> {
    const decision: UntypedDecision<JournalEvent> = { records: [{ draft }], commit: (stored) => stored[0]! };
    if (this.#closed) return Promise.reject(new UnavailableError(`log ${this.journal.name} is closed`));
    return this.#enqueue(() => this.#attempt(() => decision, undefined));
  }

  /** Folds whatever the log holds past the head (another process's writes). Effects: reads the log. */
  catchUp(): Promise<void> {
    return this.#enqueue(() => this.#catchUp());
  }

  /**
   * Follows the log: events other processes append are folded as they land. Our own appends come back
   * too and are skipped by seq. Effects: keeps a subscription open until `close`.
   */
  follow(): void {
    if (this.#following || this.#closed) return;
    this.#following = this.#follow();
  }

  /** Stops following and lets queued decisions finish. Idempotent; the journal stays open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#subscription?.close().catch(() => undefined);
    await this.#following;
    await this.#pumping;
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ kind: 'exclusive', run: () => task().then(resolve, reject) });
      this.#pump();
    });
  }

  /** Runs the queue in order: an exclusive task alone, consecutive joinable ones of one origin as a round. */
  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = this.#drain().finally(() => {
      this.#pumping = undefined;
      if (this.#queue.length > 0) this.#pump();
    });
  }

  async #drain(): Promise<void> {
    // Lets every decision queued in this turn of the event loop join the first round: requests arrive one
    // per socket read, each in its own callback of the loop's poll phase, and setImmediate runs after all
    // of them. Waiting only for the microtask queue made every HTTP round one decision (one write each).
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#queue.length > 0) {
      const head = this.#queue[0]!;
      if (head.kind === 'exclusive') {
        this.#queue.shift();
        await head.run();
        continue;
      }
      const round: Joinable[] = [];
      for (let next = this.#queue[0]; round.length < MAX_ROUND; next = this.#queue[0]) {
        if (next?.kind !== 'joinable' || next.origin !== head.origin) break;
        round.push(this.#queue.shift() as Joinable);
      }
      await this.#round(round);
    }
  }

  /** Decides, applies and writes one round; see {@link runSpeculative}. Never throws. */
  async #round(round: readonly Joinable[]): Promise<void> {
    const origin = round[0]!.origin;
    const taken: { task: Joinable; decision: SpeculativeDecision<unknown>; events: JournalEvent[] }[] = [];
    const undos: (() => void)[] = [];
    let rest: Joinable[] = [];
    let seq = this.#head;
    for (const [i, task] of round.entries()) {
      let decision: SpeculativeDecision<unknown>;
      try {
        decision = task.decide();
      } catch (err) {
        task.reject(err); // a refusal: nothing applied, nothing written
        continue;
      }
      const writes = decision.records.length > 0;
      // A decision that cannot be undone is decided against durable state and goes alone.
      if (writes && !decision.undoable && seq > this.#head) {
        rest = round.slice(i);
        break;
      }
      const events = decision.records.map((r, j) => stampDraft(r.draft, seq + 1 + j, this.options.clock));
      seq += events.length;
      taken.push({ task, decision, events });
      if (writes && !decision.undoable) {
        rest = round.slice(i + 1);
        break;
      }
      undos.push(decision.apply(events));
    }
    // Whatever did not fit this round is decided first in the next one.
    this.#queue.unshift(...rest.map((task) => ({ kind: 'joinable' as const, ...task })));
    const events = taken.flatMap((t) => t.events);
    let stored: JournalEvent[] = [];
    if (events.length > 0) {
      const undoAll = () => {
        for (const undo of undos.reverse()) undo();
        undos.length = 0;
      };
      try {
        const records = taken.flatMap((t) => t.decision.records);
        const drafts = events.map(({ seq: _seq, ...draft }) => draft);
        // What part of a batch landed is folded into the model as it was before this round's applies.
        stored = await this.#append(
          records.map((r, i) => ({ ...r, draft: drafts[i]! })),
          undoAll,
        );
      } catch (err) {
        undoAll();
        if (isSeqConflict(err))
          return this.#retryRound(
            taken.map((t) => t.task),
            err,
          );
        for (const { task } of taken) task.reject(err);
        return;
      }
      this.#head = stored[stored.length - 1]!.seq;
      const applied = undos.length === taken.length;
      for (const folder of this.#folders) {
        if (folder !== origin || !applied) this.#foldStored(folder, stored);
      }
    }
    let offset = 0;
    for (const { task, decision, events: mine } of taken) {
      const slice = stored.slice(offset, offset + mine.length);
      offset += mine.length;
      try {
        task.resolve(decision.commit(slice));
      } catch (err) {
        task.reject(err);
      }
    }
  }

  /** A round lost the fencing race: catch up, then decide its members again, first in the queue. */
  async #retryRound(tasks: Joinable[], conflict: unknown): Promise<void> {
    const again = tasks.filter((task) => {
      if (++task.conflicts <= this.#retry.retries) return true;
      task.reject(conflict);
      return false;
    });
    try {
      await this.#catchUp();
    } catch (err) {
      for (const task of again) task.reject(err);
      return;
    }
    if (again.length === 0) return;
    await sleep(backoffMs(this.#retry, Math.max(...again.map((t) => t.conflicts)) - 1));
    this.#queue.unshift(...again.map((task) => ({ kind: 'joinable' as const, ...task })));
  }

  async #attempt<T>(decide: () => UntypedDecision<T>, origin: LogFolder | undefined): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const decision = decide();
      if (decision.records.length === 0) return decision.commit([]);
      let stored: JournalEvent[];
      try {
        stored = await this.#append(decision.records);
      } catch (err) {
        if (!isSeqConflict(err) || attempt >= this.#retry.retries) throw err;
        await this.#catchUp();
        await sleep(backoffMs(this.#retry, attempt));
        continue;
      }
      this.#head = stored[stored.length - 1]!.seq;
      for (const folder of this.#folders) if (folder !== origin) this.#foldStored(folder, stored);
      return decision.commit(stored);
    }
  }

  /**
   * Appends one decision's records (see appendRecords). When only part lands, `beforePartialFold` runs
   * before that part is folded (a round takes its speculative applies back first, or the folder would skip
   * the landed events as already folded).
   */
  #append(
    records: UntypedDecision<unknown>['records'],
    beforePartialFold?: () => void,
  ): Promise<JournalEvent[]> {
    return appendRecords(this.journal, records, this.#head, this.options, (written) => {
      // What did land is in the log, so it is part of the state: fold it in before giving up. The decision
      // is then partly stored, which is no refusal (the truth rule, README "Durability").
      this.#head = written[written.length - 1]!.seq;
      beforePartialFold?.();
      for (const folder of this.#folders) folder.fold(written);
    });
  }

  /**
   * The records are durable, so the decision stands whatever a read model makes of them: a fold failure
   * (a bug: we wrote them typed) is reported, never answered as a failed write.
   */
  #foldStored(folder: LogFolder, stored: readonly JournalEvent[]): void {
    try {
      folder.fold(stored);
    } catch (err) {
      this.options.onError?.(err);
    }
  }

  async #catchUp(): Promise<void> {
    for (;;) {
      const page = await this.journal.list({ afterSeq: this.#head, limit: this.#pageSize });
      if (page.length === 0) return;
      this.#foldNew(page);
    }
  }

  /** Folds the events past the head; the caller guarantees they follow it without a gap. */
  #foldNew(events: readonly JournalEvent[]): void {
    const fresh = events.filter((e) => e.seq > this.#head);
    if (fresh.length === 0) return;
    for (const folder of this.#folders) folder.fold(fresh);
    this.#head = fresh[fresh.length - 1]!.seq;
  }

  async #follow(): Promise<void> {
    while (!this.#closed) {
      const subscription = this.journal.subscribe(this.#head);
      this.#subscription = subscription;
      try {
        for await (const event of subscription) this.#arrive(event);
        return; // the journal or this runtime closed it
      } catch (err) {
        if (this.#closed) return;
        this.options.onError?.(err);
        await subscription.close().catch(() => undefined);
        await sleep(1000);
      }
    }
  }

  /** Queues arrivals and folds them in one task, behind the decisions queued before they landed. */
  #arrive(event: JournalEvent): void {
    if (event.seq <= this.#head) return;
    this.#arrived.push(event);
    if (this.#arrived.length > 1) return;
    void this.#enqueue(async () => {
      const arrived = this.#arrived;
      this.#arrived = [];
      if (arrived[arrived.length - 1]!.seq <= this.#head) return;
      const first = arrived.find((e) => e.seq > this.#head)!;
      if (first.seq === this.#head + 1 && isContiguous(arrived, first)) this.#foldNew(arrived);
      else await this.#catchUp();
    }).catch((err: unknown) => this.options.onError?.(err));
  }
}

function isContiguous(events: readonly JournalEvent[], from: JournalEvent): boolean {
  let seq = from.seq;
  for (const event of events) {
    if (event.seq < from.seq) continue;
    if (event.seq !== seq) return false;
    seq++;
  }
  return true;
}
