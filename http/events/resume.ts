import { parseCursor } from '../../actors/cursor.ts';
import { BadRequestError } from '../../actors/errors.ts';

/**
 * Where a stream resumes, from the `Last-Event-ID` header (first) or the query parameter. Blank values
 * count as absent; a value that is present but malformed is a 400, never a silent replay from zero.
 */

const headerValue = (value: string | string[] | undefined): string | undefined => {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text === '' ? undefined : text;
};

/** Parses a decimal seq. Pure. @throws BadRequestError naming `param`. */
export function parseSeq(text: string, param: string): number {
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new BadRequestError(`${param} must be a non-negative integer: ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/**
 * The city stream's resume seq: `Last-Event-ID`, else `after_seq`; `undefined` when neither is given (start
 * at the current head). Pure. @throws BadRequestError on a non-numeric value.
 */
export function cityResume(
  lastEventId: string | string[] | undefined,
  afterSeq: string | undefined,
): number | undefined {
  const header = headerValue(lastEventId);
  if (header !== undefined) return parseSeq(header, 'Last-Event-ID');
  const query = headerValue(afterSeq);
  return query === undefined ? undefined : parseSeq(query, 'after_seq');
}

/**
 * The supervisor stream's resume cursor: `Last-Event-ID`, else `after_cursor`; `undefined` when neither is
 * given (start at every log's current head). Pure. @throws BadRequestError on a malformed cursor.
 */
export function supervisorResume(
  lastEventId: string | string[] | undefined,
  afterCursor: string | undefined,
): Map<string, number> | undefined {
  const header = headerValue(lastEventId);
  if (header !== undefined) return parseCursor(header, 'Last-Event-ID');
  const query = headerValue(afterCursor);
  return query === undefined ? undefined : parseCursor(query, 'after_cursor');
}
