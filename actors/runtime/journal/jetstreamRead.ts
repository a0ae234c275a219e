import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { UnavailableError } from '../errors.ts';
import { continues, decodeEvent, decodeMessage, type BatchMark } from './jetstreamCodec.ts';
import { JOURNAL_UNAVAILABLE } from './jetstreamErrors.ts';
import { matchesFilter } from './filter.ts';
import type { JournalEvent, ListFilter } from './journal.ts';

/** What a read needs from its journal. */
export interface ReadContext {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly log: string;
  readonly stream: string;
  /** How long a range read may wait for the next message before the broker counts as unavailable. */
  readonly timeoutMs: number;
}

/** Ranges up to this size are fetched by direct get; longer ones stream through an ordered consumer. */
const DIRECT_RANGE = 64;
/** The largest backwards step of a tail read, and the most direct gets in flight at once. */
const MAX_STEP = 1024;
/** The most messages one pull of a forward scan asks for. */
const SCAN_BATCH = 1024;

/**
 * Lists a log's events as `Journal.list` specifies. A newest-first read with a limit walks backwards
 * from the head by sequence in growing steps, so it never scans the whole stream; everything else reads
 * the seq window `(afterSeq, beforeSeq)` forwards, by direct get when short and through a short-lived
 * ordered consumer otherwise.
 *
 * Effects: stream info and direct-get requests; a forward scan creates an ephemeral consumer and
 * deletes it before returning. Throws NATS errors as they come (the caller maps them) and
 * `UnavailableError` when a scan stalls for `timeoutMs`.
 */
export async function listEvents(ctx: ReadContext, filter: ListFilter = {}): Promise<JournalEvent[]> {
  const { state } = await ctx.jsm.streams.info(ctx.stream);
  if (state.messages === 0) return [];
  const lo = Math.max(state.first_seq, (filter.afterSeq ?? 0) + 1);
  let hi = Math.min(state.last_seq, (filter.beforeSeq ?? Infinity) - 1);
  if (hi === state.last_seq) {
    // A batch whose writer is still publishing (or died mid-way) is not in the log yet: all or none.
    const unfinished = await unfinishedBatch(ctx.jsm, ctx.stream, state.last_seq);
    if (unfinished) hi = unfinished.start - 1;
  }
  if (hi < lo) return [];
  const limit = filter.limit && filter.limit > 0 ? filter.limit : Infinity;
  if (filter.order !== 'desc') return scanForward(ctx, lo, hi, filter, limit);
  if (limit !== Infinity) return walkBack(ctx, lo, hi, filter, limit);
  return (await scanForward(ctx, lo, hi, filter, Infinity)).reverse();
}

/**
 * The batch that the stream's last message (`lastSeq`) leaves unfinished, if any: where it starts and the
 * mark of its first message (which carries the rest). Effects: one or two direct gets.
 */
export async function unfinishedBatch(
  jsm: JetStreamManager,
  stream: string,
  lastSeq: number,
): Promise<{ start: number; first: BatchMark } | undefined> {
  if (lastSeq === 0) return undefined;
  const last = await jsm.direct.getMessage(stream, { seq: lastSeq });
  if (!last) return undefined;
  const { batch } = decodeMessage(last.seq, last.string());
  if (!continues(batch)) return undefined;
  const start = last.seq - batch!.index;
  const head = batch!.index === 0 ? last : await jsm.direct.getMessage(stream, { seq: start });
  const first = head ? decodeMessage(head.seq, head.string()).batch : undefined;
  return first ? { start, first } : undefined;
}

/** The events stored at seqs `lo..hi`, ascending, by concurrent direct gets; missing seqs are skipped. */
async function getRange(ctx: ReadContext, lo: number, hi: number): Promise<JournalEvent[]> {
  const gets = [];
  for (let seq = lo; seq <= hi; seq++) gets.push(ctx.jsm.direct.getMessage(ctx.stream, { seq }));
  const out: JournalEvent[] = [];
  for (const m of await Promise.all(gets)) if (m) out.push(decodeEvent(m.seq, m.string()));
  return out;
}

function take(events: Iterable<JournalEvent>, filter: ListFilter, limit: number, out: JournalEvent[]): void {
  for (const e of events) {
    if (out.length >= limit) return;
    if (matchesFilter(e, filter)) out.push(e);
  }
}

async function walkBack(
  ctx: ReadContext,
  lo: number,
  hi: number,
  filter: ListFilter,
  limit: number,
): Promise<JournalEvent[]> {
  const out: JournalEvent[] = [];
  // Start near the page size and double: an unfiltered tail costs one step, a sparse filter a few.
  let step = Math.min(Math.max(limit, 16), MAX_STEP);
  for (let top = hi; top >= lo && out.length < limit; step = Math.min(step * 2, MAX_STEP)) {
    const bottom = Math.max(lo, top - step + 1);
    take((await getRange(ctx, bottom, top)).reverse(), filter, limit, out);
    top = bottom - 1;
  }
  return out;
}

async function scanForward(
  ctx: ReadContext,
  lo: number,
  hi: number,
  filter: ListFilter,
  limit: number,
): Promise<JournalEvent[]> {
  const out: JournalEvent[] = [];
  if (hi - lo < DIRECT_RANGE) {
    take(await getRange(ctx, lo, hi), filter, limit, out);
    return out;
  }
  const consumer = await ctx.js.consumers.get(ctx.stream, { opt_start_seq: lo });
  const messages = await consumer.consume({ max_messages: Math.min(hi - lo + 1, SCAN_BATCH) });
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const watchdog = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      messages.stop();
    }, ctx.timeoutMs);
  };
  try {
    watchdog();
    for await (const m of messages) {
      watchdog();
      if (m.seq > hi) break;
      take([decodeEvent(m.seq, m.string())], filter, limit, out);
      // `pending` 0 means the stream ends here: never wait for a seq that is not coming.
      if (out.length >= limit || m.seq >= hi || m.info.pending === 0) break;
    }
  } finally {
    clearTimeout(timer);
    messages.stop();
    await consumer.delete().catch(() => false);
  }
  if (stalled) {
    throw new UnavailableError(
      `journal ${ctx.log}: no message from the broker for ${ctx.timeoutMs}ms`,
      JOURNAL_UNAVAILABLE,
    );
  }
  return out;
}
