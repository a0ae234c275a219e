import { ValidationError, type FieldError } from '../../actors/errors.ts';
import type { Journal } from '../../actors/journal/journal.ts';
import { closeQuietly } from './closeQuietly.ts';
import { parseGoDuration } from '../goDuration.ts';

/** Default and ceiling of a blocking query's `wait`. */
export const DEFAULT_WAIT_MS = 30_000;
export const MAX_WAIT_MS = 5 * 60_000;

/**
 * Validates a blocking query: `index` a non-negative integer, `wait` a positive Go duration (clamped to
 * 5 min). Returns undefined when `index` is absent (no blocking). Pure.
 * @throws ValidationError (422) whose `errors[]` names each bad parameter.
 */
export function blockingQuery(
  index: string | undefined,
  wait: string | undefined,
): { index: number; waitMs: number } | undefined {
  const errors: FieldError[] = [];
  let waitMs = DEFAULT_WAIT_MS;
  if (wait !== undefined && wait !== '') {
    let parsed = NaN;
    try {
      parsed = parseGoDuration(wait);
    } catch {
      // reported below with the contract's message
    }
    if (!(parsed > 0)) {
      errors.push({
        location: 'query.wait',
        message: 'wait must be a positive Go duration string (e.g. 30s)',
        value: wait,
      });
    } else waitMs = Math.min(parsed, MAX_WAIT_MS);
  }
  let seq: number | undefined;
  if (index !== undefined) {
    if (/^\d{1,16}$/.test(index) && Number.isSafeInteger(Number(index))) seq = Number(index);
    else
      errors.push({ location: 'query.index', message: 'index must be a non-negative integer', value: index });
  }
  if (errors.length > 0) throw new ValidationError('validation failed', null, { errors });
  return seq === undefined ? undefined : { index: seq, waitMs };
}

/**
 * Waits until the log's head passes `index`, `waitMs` elapses, or `signal` aborts (the client left),
 * whichever comes first; never throws for a timeout. Woken by the journal's own subscription, not by polling.
 * Effects: one subscription and one timer, both released before it resolves.
 */
export async function waitForHead(
  journal: Journal,
  index: number,
  waitMs: number,
  signal: AbortSignal,
): Promise<void> {
  if (signal.aborted || (await journal.head()) > index) return;
  const sub = journal.subscribe(index);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  // Settles when the first event after `index` exists; a failure after we stopped waiting is not news.
  const first = sub[Symbol.asyncIterator]().next();
  first.catch(() => {});
  try {
    await Promise.race([
      first,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
        onAbort = resolve;
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    await closeQuietly(sub);
  }
}
