import { BadRequestError } from './errors.ts';
import {
  CursorSyntaxError,
  formatCursor,
  parseCompositeCursor,
  type CompositeCursor,
  type CursorMap,
} from '../../schemas/compositeCursor.ts';
import type { Journal } from './journal/journal.ts';

/**
 * The server's side of the composite supervisor cursor (its grammar and codec: schemas/compositeCursor.ts,
 * shared with the CLI): refusing a malformed one as a 400, and capturing the cursor of "now" from the heads.
 */

/**
 * Parses a composite cursor strictly (schemas/compositeCursor.ts). Pure.
 * @throws BadRequestError (400 `invalid: …`) on a malformed cursor: it is refused, never silently replayed
 *   from zero.
 */
export function parseCursor(text: string, param = 'cursor'): Map<string, number> {
  try {
    return parseCompositeCursor(text, param);
  } catch (err) {
    if (err instanceof CursorSyntaxError) throw new BadRequestError(err.message, 'invalid', { cause: err });
    throw err;
  }
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
