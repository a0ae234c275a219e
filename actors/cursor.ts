import { BadRequestError } from './errors.ts';
import { parseQueryInteger } from '../schemas/queryInteger.ts';
import type { Journal } from './journal/journal.ts';

/**
 * The composite supervisor cursor: `name:seq` pairs joined by `,`, names sorted bytewise, one pair for
 * `__supervisor__` and one per city (`__supervisor__:42,alpha:4,beta:9`). A pair means "everything up to and
 * including this seq was delivered"; a log absent from a cursor replays from its start; the literal `0` is
 * the empty cursor (replay everything).
 */

/** Per-log positions, keyed by cursor name. */
export type CursorMap = ReadonlyMap<string, number>;

/** A formatted composite cursor (what `formatCursor` returns, what streams put in `id:`). */
export type CompositeCursor = string & { readonly __brand: 'CompositeCursor' };

/**
 * Orders strings by their UTF-8 bytes, as Go's `sort.Strings` does (JS `<` compares UTF-16 units, which
 * differs above U+FFFF). This is a pure function.
 */
export function compareBytewise(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/**
 * Formats positions as a composite cursor, names sorted bytewise, zero entries kept. An empty map formats
 * as `''`; callers that must return a cursor use `captureCursor`, which says `0` instead. Pure.
 */
export function formatCursor(positions: CursorMap): CompositeCursor {
  return [...positions.keys()]
    .sort(compareBytewise)
    .map((name) => `${name}:${positions.get(name)!}`)
    .join(',') as CompositeCursor;
}

/**
 * Parses a composite cursor strictly. Each pair splits on its last `:` (names may contain `:`); the seq is a
 * non-negative decimal integer. The literal `0` is the empty map. Pure.
 *
 * @throws BadRequestError (400 `invalid: …`) on an empty cursor, a pair without a name or without a decimal
 *   seq, or a name given twice: a malformed cursor is refused, never silently replayed from zero.
 */
export function parseCursor(text: string, param = 'cursor'): Map<string, number> {
  const fail = (why: string): never => {
    throw new BadRequestError(`${param} is not a valid event cursor (${why}): ${JSON.stringify(text)}`);
  };
  const positions = new Map<string, number>();
  if (text === '0') return positions;
  if (text === '') fail('empty');
  for (const pair of text.split(',')) {
    const colon = pair.lastIndexOf(':');
    if (colon < 0) fail(`pair ${JSON.stringify(pair)} has no ':'`);
    const name = pair.slice(0, colon);
    const seq = pair.slice(colon + 1);
    if (name === '') fail(`pair ${JSON.stringify(pair)} has no name`);
    const value = parseQueryInteger(seq);
    if (value === undefined) fail(`pair ${JSON.stringify(pair)} needs a non-negative integer seq`);
    if (positions.has(name)) fail(`${JSON.stringify(name)} appears twice`);
    positions.set(name, value!);
  }
  return positions;
}

/**
 * Reads every log's head, zero heads included: the positions of a stream that starts "now".
 * Effects: one `head()` per log. Throws what a journal's `head()` throws.
 */
export async function headPositions(logs: ReadonlyMap<string, Journal>): Promise<Map<string, number>> {
  const entries = await Promise.all([...logs].map(async ([name, log]) => [name, await log.head()] as const));
  return new Map(entries);
}

/**
 * Every log's head, as `headPositions`, except that a log whose head cannot be read within `waitMs` (it
 * fails, or its store is stalled) is left out and named in `pending` instead of failing or holding up the
 * rest. Effects: one `head()` per log; never throws.
 */
export async function headPositionsWithin(
  logs: ReadonlyMap<string, Journal>,
  waitMs: number,
): Promise<{ positions: Map<string, number>; pending: Set<string> }> {
  const positions = new Map<string, number>();
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), waitMs)));
  await Promise.all(
    [...logs].map(async ([name, log]) => {
      const head = await Promise.race([log.head(), late]).catch(() => 'failed' as const);
      if (typeof head === 'number') positions.set(name, head);
      else pending.add(name);
    }),
  );
  clearTimeout(timer);
  return { positions, pending };
}

/**
 * The supervisor cursor of "now" for a 202 `event_cursor` or a list's snapshot boundary: every log with
 * events at its head; `0` when every log is empty. A log absent from it had no events, so resuming from
 * it replays that log from its start, which is exactly what happened after the capture.
 * Effects: one `head()` per log. Throws what a journal's `head()` throws.
 */
export async function captureCursor(logs: ReadonlyMap<string, Journal>): Promise<CompositeCursor> {
  return cursorOfHeads(await headPositions(logs));
}

/** Formats heads as a capture does: zero heads dropped, `0` when nothing is left. Pure. */
export function cursorOfHeads(heads: CursorMap): CompositeCursor {
  const nonEmpty = new Map([...heads].filter(([, seq]) => seq > 0));
  return nonEmpty.size === 0 ? ('0' as CompositeCursor) : formatCursor(nonEmpty);
}
