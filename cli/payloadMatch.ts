/** One `--payload-match path=value` argument, split. */
export interface PayloadMatchTerm {
  path: string;
  value: string;
}

/**
 * The parsed `--payload-match` filter: terms grouped by path. An event matches when, for every path, at
 * least one of that path's values equals the payload's value there (same path = OR, different paths = AND).
 */
export type PayloadMatcher = ReadonlyMap<string, readonly string[]>;

/**
 * Parses `--payload-match` arguments. Each is `<path>=<value>`, split at the first `=` (so values may
 * contain `=`); a missing `=` or an empty path is an error. This is a pure function.
 *
 * @throws Error `invalid --payload-match "<arg>": expected key=value`
 */
export function parsePayloadMatch(args: readonly string[]): PayloadMatcher {
  const byPath = new Map<string, string[]>();
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const path = eq < 0 ? '' : arg.slice(0, eq).trim();
    if (path === '') throw new Error(`invalid --payload-match "${arg}": expected key=value`);
    const values = byPath.get(path) ?? [];
    values.push(arg.slice(eq + 1));
    byPath.set(path, values);
  }
  return byPath;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const MISSING = Symbol('missing');

/**
 * Looks a dotted path up in a payload. At each level the whole remaining path as one key wins (payload keys
 * may themselves contain dots); otherwise the longest dotted prefix that names a nested object is tried
 * first, then shorter ones. Returns `MISSING` when nothing resolves. Pure.
 */
function lookup(node: unknown, path: string): unknown {
  if (!isObject(node)) return MISSING;
  if (Object.hasOwn(node, path)) return node[path];
  for (let dot = path.lastIndexOf('.'); dot > 0; dot = path.lastIndexOf('.', dot - 1)) {
    const head = path.slice(0, dot);
    if (!Object.hasOwn(node, head)) continue;
    const found = lookup(node[head], path.slice(dot + 1));
    if (found !== MISSING) return found;
  }
  return MISSING;
}

/** A payload value as the text a `--payload-match` value is compared with: strings as-is, the rest as JSON. */
const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * True when `payload` satisfies every path of the matcher (an empty matcher matches everything).
 * Strings compare as they are; numbers, booleans, null, arrays and objects compare as compact JSON text, so
 * `count=3`, `ok=true` and `tags=["a"]` all work. Pure.
 */
export function payloadMatches(matcher: PayloadMatcher, payload: unknown): boolean {
  for (const [path, values] of matcher) {
    const found = lookup(payload, path);
    if (found === MISSING) return false;
    if (!values.includes(asText(found))) return false;
  }
  return true;
}
