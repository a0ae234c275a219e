/**
 * The largest integer a query parameter may carry: 2^53 - 1, the largest a JSON number holds exactly, so a
 * seq or limit is never silently rounded (a rounded `index` would block on a head that can never come).
 */
export const QUERY_INTEGER_MAX = Number.MAX_SAFE_INTEGER;

const DIGITS = /^\d+$/;

/**
 * The one integer grammar of query parameters and of the seqs in resume values: ASCII decimal digits only
 * (leading zeros allowed, as Go's strconv reads them), at most {@link QUERY_INTEGER_MAX}. No sign, exponent,
 * hex prefix, fraction or whitespace: `Number()` alone would read `1e309` as Infinity and `0x10` as 16.
 * Every integer in this API's queries is a count or a position, so none is negative. Pure; this module
 * imports nothing, so the CLI shares it without loading TypeBox at start-up.
 * @returns the value, or undefined when `text` is not such an integer.
 */
export function parseQueryInteger(text: string): number | undefined {
  if (!DIGITS.test(text)) return undefined;
  const value = Number(text);
  return value <= QUERY_INTEGER_MAX ? value : undefined;
}
