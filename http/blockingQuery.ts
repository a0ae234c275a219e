import type { FastifyReply } from 'fastify';
import type { BeadStore } from '../actors/beads/index.ts';
import { ValidationError, type FieldError } from '../actors/runtime/errors.ts';
import type { Journal } from '../actors/runtime/journal/journal.ts';
import { parseQueryInteger } from '../schemas/queryInteger.ts';
import { closeQuietly } from '../actors/runtime/feed/closeQuietly.ts';
import { parseGoDuration } from './goDuration.ts';
import { integerMessage } from './queryIntegerGrammar.ts';

export const DEFAULT_WAIT_MS = 30_000;
/** Upstream's code clamps the event list's wait at 5 min although its doc says 2m; its clients may rely on it. */
export const EVENT_LIST_MAX_WAIT_MS = 5 * 60_000;
/** Every other blocking route keeps upstream's documented ceiling. */
export const MAX_WAIT_MS = 2 * 60_000;

export interface BlockingQuery {
  index: number;
  waitMs: number;
}

/**
 * The blocking query of `index` + `wait` on any route, or undefined when `index` is absent or blank (Go reads
 * a blank value as absent). `wait` is checked even without `index`: a bad one is a client bug either way.
 * Pure.
 * @throws ValidationError (422) whose `errors[]` names each bad parameter, as upstream's event list does.
 */
export function parseBlockingQuery(
  query: { index?: string; wait?: string },
  maxWaitMs: number,
): BlockingQuery | undefined {
  const errors: FieldError[] = [];
  const { index, wait } = query;
  const blank = index === undefined || index === '';
  const seq = blank ? undefined : parseQueryInteger(index);
  if (!blank && seq === undefined) {
    errors.push({ location: 'query.index', message: integerMessage('index'), value: index });
  }
  const waitMs = wait === undefined || wait === '' ? DEFAULT_WAIT_MS : positiveDuration(wait);
  if (waitMs === undefined) {
    errors.push({
      location: 'query.wait',
      message: 'wait must be a positive Go duration string (e.g. 30s)',
      value: wait,
    });
  }
  if (errors.length > 0) throw new ValidationError('validation failed', null, { errors });
  if (seq === undefined) return undefined;
  return { index: seq, waitMs: Math.min(waitMs!, maxWaitMs) };
}

function positiveDuration(text: string): number | undefined {
  try {
    const ms = parseGoDuration(text);
    return ms > 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}

/** Holds the request until the city's journal has an event after `query.index` (see {@link hold}). */
export function waitForJournal(reply: FastifyReply, journal: Journal, query: BlockingQuery): Promise<void> {
  return hold(reply, query.waitMs, (signal) => journalPasses(journal, query.index, signal));
}

/** A read model that can say when it has folded an event after an index (the bead store, the agent service). */
export type IndexedReadModel = Pick<BeadStore, 'waitForIndex'>;

/**
 * Holds the request until the read model has folded an event after `query.index` (see {@link hold}); the
 * read model, not the journal, because its answer must include the change the client waited for.
 */
export function waitForStore(
  reply: FastifyReply,
  store: IndexedReadModel,
  query: BlockingQuery,
): Promise<void> {
  return hold(reply, query.waitMs, (signal) => store.waitForIndex(query.index, query.waitMs, signal));
}

/**
 * Runs `until` with a signal that aborts after `waitMs` or when the client goes away, whichever is first;
 * never throws for either. Effects: one timer and one close listener, both released before it resolves.
 */
async function hold(
  reply: FastifyReply,
  waitMs: number,
  until: (signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  const done = new AbortController();
  const stop = (): void => done.abort();
  const timer = setTimeout(stop, waitMs);
  reply.raw.once('close', stop);
  try {
    await until(done.signal);
  } finally {
    clearTimeout(timer);
    reply.raw.off('close', stop);
  }
}

/** Resolves once `journal` has an event after `index` or `signal` aborts; woken by a subscription, not polling. */
async function journalPasses(journal: Journal, index: number, signal: AbortSignal): Promise<void> {
  // Checked after the read: an abort while reading would otherwise never be heard.
  if ((await journal.head()) > index || signal.aborted) return;
  const sub = journal.subscribe(index);
  const first = sub[Symbol.asyncIterator]().next();
  // A failure after we stopped waiting is not news.
  first.catch(() => {});
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      first,
      new Promise<void>((resolve) => {
        onAbort = resolve;
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    await closeQuietly(sub);
  }
}
