/**
 * One entry of an agent's conversation log, as the transcript readers see it: the DAG links of a Claude
 * entry (`uuid`, `parentUuid`, and `logicalParentUuid` across a compaction), its kind, and the verbatim line
 * the provider wrote (what `format=raw` forwards). Codex and Gemini entries are converted to this shape with
 * synthetic ids (`codex-<n>`, `gemini-<n>`) and a linear chain. Pure.
 */
export interface LogEntry {
  /** '' for entries without one (Claude's file-history snapshots, summaries): they are never on the chain. */
  uuid: string;
  parentUuid: string | null;
  /** On a `compact_boundary`: the last entry before the compaction. */
  logicalParentUuid?: string;
  /** user, assistant, system, result, progress, … */
  type: string;
  subtype?: string;
  timestamp?: string;
  /** A sub-agent's entry written into the parent's log (older Claude versions). */
  sidechain: boolean;
  /** The parsed entry (the Claude shape, or a converted Codex/Gemini one). */
  value: Record<string, unknown>;
  /** The provider's own JSON text of this entry, forwarded verbatim by `format=raw`. */
  raw: string;
}

/** The entry kinds a conversation view shows (upstream's display types). */
export const DISPLAY_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'result']);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Reads one Claude JSONL line; undefined for a line that is not a JSON object (a torn write). Pure. */
export function parseClaudeLine(line: string): LogEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const entry: LogEntry = {
    uuid: str(v.uuid) ?? '',
    parentUuid: str(v.parentUuid) ?? null,
    type: str(v.type) ?? '',
    sidechain: v.isSidechain === true,
    value: v,
    raw: line,
  };
  const logical = str(v.logicalParentUuid);
  if (logical) entry.logicalParentUuid = logical;
  const subtype = str(v.subtype);
  if (subtype) entry.subtype = subtype;
  const ts = str(v.timestamp);
  if (ts) entry.timestamp = ts;
  return entry;
}

/** A compaction divider: `system` / `compact_boundary`. */
export const isCompactBoundary = (e: LogEntry): boolean =>
  e.type === 'system' && e.subtype === 'compact_boundary';
