/**
 * Bead ids are `<prefix>-<n>`: the prefix names the owning city store (upstream: "the prefix before
 * `-` identifies the owning store"), `n` counts up from 1 and is never reused, deleted beads included.
 */

/**
 * The id prefix of a city: the first two letters or digits of its name, lowercased (`gc` when it has
 * none). Stable for a given name, so ids stay stable across restarts. This is a pure function.
 */
export function idPrefixFor(cityName: string): string {
  const letters = cityName.toLowerCase().replace(/[^a-z0-9]/g, '');
  return letters.slice(0, 2) || 'gc';
}

/** The `<n>` of an id with this prefix, or undefined for any other id. This is a pure function. */
export function idNumber(id: string, prefix: string): number | undefined {
  if (!id.startsWith(prefix) || id.charCodeAt(prefix.length) !== 45 /* - */) return undefined;
  const digits = id.slice(prefix.length + 1);
  if (!/^[1-9][0-9]{0,14}$/.test(digits)) return undefined;
  return Number(digits);
}

/** `<prefix>-<n>`. */
export const formatId = (prefix: string, n: number): string => `${prefix}-${n}`;
