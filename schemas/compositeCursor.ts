import { parseQueryInteger } from './queryInteger.ts';

/**
 * The composite supervisor cursor, as the wire carries it: `name:seq` pairs joined by `,`, names sorted
 * bytewise, one pair for `__supervisor__` and one per city (`__supervisor__:42,alpha:4,beta:9`). A pair means
 * "everything up to and including this seq was delivered"; a log absent from a cursor replays from its start;
 * the literal `0` is the empty cursor (replay everything). The one codec of the server and the CLI: both
 * must agree on which texts are cursors, or the CLI would send what the server refuses. Pure, no I/O.
 */

/** Per-log positions, keyed by cursor name. */
export type CursorMap = ReadonlyMap<string, number>;

/** A formatted composite cursor (what `formatCursor` returns, what streams put in `id:`). */
export type CompositeCursor = string & { readonly __brand: 'CompositeCursor' };

/**
 * A text that is not a composite cursor. Its message is the one the server answers with after `invalid: `;
 * callers that report it elsewhere (the CLI) say it their own way.
 */
export class CursorSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CursorSyntaxError';
  }
}

/**
 * Orders strings by their UTF-8 bytes, as Go's `sort.Strings` does (JS `<` compares UTF-16 units, which
 * differs above U+FFFF). Pure.
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
 * as `''`; callers that must return a cursor say `0` instead (actors/runtime/cursor.ts `cursorOfHeads`). Pure.
 */
export function formatCursor(positions: CursorMap): CompositeCursor {
  return [...positions.keys()]
    .sort(compareBytewise)
    .map((name) => `${name}:${positions.get(name)!}`)
    .join(',') as CompositeCursor;
}

/**
 * Parses a composite cursor strictly. Each pair splits on its last `:` (names may contain `:`); the seq is
 * held to the one query integer grammar (schemas/queryInteger.ts). The literal `0` is the empty map. No
 * trimming: a resume value loses its surrounding whitespace where it is read (header, query, flag). Pure.
 *
 * @throws CursorSyntaxError naming `param` on an empty cursor, a pair without a name or without a decimal
 *   seq, or a name given twice: a malformed cursor is refused, never silently replayed from zero.
 */
export function parseCompositeCursor(text: string, param = 'cursor'): Map<string, number> {
  const fail = (why: string): never => {
    throw new CursorSyntaxError(`${param} is not a valid event cursor (${why}): ${JSON.stringify(text)}`);
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
