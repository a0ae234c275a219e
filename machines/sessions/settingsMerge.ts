/**
 * Upstream's merge of provider settings and hook files (internal/overlay/merge.go): when an overlay brings
 * one of these files and the working directory already has it, the two JSON documents are merged instead
 * of the overlay's overwriting. Pure.
 */

/** The files merged rather than overwritten, relative to the working directory (upstream's list). */
export const MERGEABLE_SETTINGS: ReadonlySet<string> = new Set([
  '.claude/settings.json',
  '.gemini/settings.json',
  '.codex/hooks.json',
  '.cursor/hooks.json',
  '.github/hooks/gascity.json',
]);

/** True when `rel` (slash-separated, relative to the working directory) is merged. Pure. */
export const isMergeableSettings = (rel: string): boolean =>
  MERGEABLE_SETTINGS.has(
    rel
      .split(/[\\/]+/)
      .filter(Boolean)
      .join('/'),
  );

type Json = unknown;
type Obj = Record<string, Json>;

const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `overlay` merged onto `base`, as upstream: top-level keys other than `hooks` are the overlay's when it
 * has them; under `hooks` the categories are united, and a category both have is merged entry by entry by
 * identity (`matcher`, else `command`, else `bash`): the overlay's entry replaces the base's of the same
 * identity in place, others are appended. Answers upstream's text (keys sorted, two-space indent, `<`, `>`,
 * `&` escaped as Go does, a final newline), or undefined when either side is not a JSON object (upstream
 * then copies the overlay's file over). Pure.
 */
export function mergeSettingsJson(base: string, overlay: string): string | undefined {
  let b: Json;
  let o: Json;
  try {
    b = JSON.parse(base);
    o = JSON.parse(overlay);
  } catch {
    return undefined;
  }
  // Go decodes `null` into a nil map without error: it merges as an empty document.
  if (b === null) b = {};
  if (o === null) o = {};
  if (!isObj(b) || !isObj(o)) return undefined;
  const out: Obj = { ...b };
  for (const [k, v] of Object.entries(o)) out[k] = k === 'hooks' ? mergeHooks(b.hooks, v) : v;
  return `${goJson(out, '')}\n`;
}

function mergeHooks(base: Json, over: Json): Json {
  const b = isObj(base) ? base : {};
  // Go: a non-object "hooks" is a nil map, which adds nothing to the base's.
  const o = isObj(over) ? over : {};
  const out: Obj = { ...b };
  for (const [k, v] of Object.entries(o)) {
    const had = out[k];
    out[k] = Array.isArray(v) && Array.isArray(had) ? mergeEntries(had, v) : v;
  }
  return out;
}

function identity(entry: Json): string | undefined {
  if (!isObj(entry)) return undefined;
  for (const [key, prefix] of [
    ['matcher', ''],
    ['command', 'cmd:'],
    ['bash', 'bash:'],
  ] as const) {
    if (key in entry) return typeof entry[key] === 'string' ? `${prefix}${entry[key]}` : undefined;
  }
  return undefined;
}

function mergeEntries(base: Json[], over: Json[]): Json[] {
  const out = [...base];
  const at = new Map<string, number>();
  out.forEach((e, i) => {
    const id = identity(e);
    if (id !== undefined) at.set(id, i);
  });
  for (const e of over) {
    const id = identity(e);
    const i = id === undefined ? undefined : at.get(id);
    if (i !== undefined) out[i] = e;
    else {
      out.push(e);
      if (id !== undefined) at.set(id, out.length - 1);
    }
  }
  return out;
}

/** Go's `json.MarshalIndent(v, "", "  ")` of decoded JSON: map keys sorted, HTML characters escaped. */
function goJson(v: Json, indent: string): string {
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    const inner = `${indent}  `;
    return `[\n${v.map((e) => inner + goJson(e, inner)).join(',\n')}\n${indent}]`;
  }
  if (isObj(v)) {
    const keys = Object.keys(v).sort();
    if (keys.length === 0) return '{}';
    const inner = `${indent}  `;
    return `{\n${keys.map((k) => `${inner}${goString(k)}: ${goJson(v[k], inner)}`).join(',\n')}\n${indent}}`;
  }
  if (typeof v === 'string') return goString(v);
  return JSON.stringify(v);
}

const goString = (s: string): string =>
  JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
