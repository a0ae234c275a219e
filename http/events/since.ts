import { BadRequestError } from '../../actors/runtime/errors.ts';
import { parseGoDuration } from '../goDuration.ts';

/**
 * The cutoff of a `since` filter (a Go duration ago), or undefined when the parameter is absent or blank.
 * Pure given `now`. @throws BadRequestError (400 `invalid since duration: <Go's parse error>`).
 */
export function sinceCutoff(since: string | undefined, now: number = Date.now()): Date | undefined {
  if (since === undefined || since.trim() === '') return undefined;
  try {
    return new Date(now - parseGoDuration(since.trim()));
  } catch (err) {
    throw new BadRequestError(`invalid since duration: ${(err as Error).message}`, null);
  }
}
