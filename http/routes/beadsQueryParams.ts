import { BadRequestError } from '../../actors/runtime/errors.ts';
import { decodeCursor } from '../../machines/beads/paging.ts';

/**
 * The keyset position of a `cursor` query value (absent or empty: the first page).
 * @throws BadRequestError (400) for a value that is not one of our cursors: a garbage cursor never
 *   silently restarts from the first page.
 */
export function cursorPosition(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const position = decodeCursor(cursor);
  if (position === undefined) {
    throw new BadRequestError('cursor is not a valid pagination token; re-fetch the first page', null);
  }
  return position;
}
