import { parseCursor } from '../../actors/runtime/cursor.ts';
import { BadRequestError } from '../../actors/runtime/errors.ts';
import { parseQueryInteger } from '../../schemas/queryInteger.ts';
import { integerMessage } from '../queryIntegerGrammar.ts';

/**
 * Where a stream resumes, from the `Last-Event-ID` header (first) or the query parameter. Blank values
 * count as absent; a value that is present but malformed is a 400, never a silent replay from zero.
 * Header values lose their surrounding whitespace (HTTP's optional whitespace); a query seq is held to the
 * one query integer grammar as it stands, like every other integer query parameter.
 */

const headerValue = (value: string | string[] | undefined): string | undefined => {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text === '' ? undefined : text;
};

/**
 * Parses a decimal seq (schemas/queryInteger.ts). Pure.
 * @throws BadRequestError naming `param`, with `errors[]` at `location` (`query.after_seq`,
 *   `header.Last-Event-ID`) as every malformed integer query value has.
 */
export function parseSeq(text: string, param: string, location: string): number {
  const seq = parseQueryInteger(text);
  if (seq === undefined) {
    const message = integerMessage(param);
    throw new BadRequestError(`${message}: ${JSON.stringify(text)}`, 'invalid', {
      errors: [{ location, message, value: text }],
    });
  }
  return seq;
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
  if (header !== undefined) return parseSeq(header, 'Last-Event-ID', 'header.Last-Event-ID');
  return afterSeq === undefined || afterSeq === ''
    ? undefined
    : parseSeq(afterSeq, 'after_seq', 'query.after_seq');
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
