/**
 * One page of a Claude conversation from the loaded suffix of its log (pure). The log is a DAG: the active
 * tip is the latest entry by timestamp (then the longest branch, then the latest line); the conversation is
 * its `parentUuid` chain back to the root, crossing each compaction through `logicalParentUuid` (or the line
 * before the boundary when the logical parent is not in the file). A page is cut as upstream cuts it:
 * `before` first, then `tail` compaction segments (the N-th boundary from the end, inclusive); we also bound
 * it by `limit` entries, newest kept, and `after` returns the oldest `limit` entries after that message.
 *
 * The walk needs only the entries it reaches: when it would step to a parent that is not loaded and the file
 * has more before, it answers `more` and the reader loads the previous chunk.
 */
import { DISPLAY_TYPES, isCompactBoundary, type LogEntry } from './logEntry.ts';
import { turnOf } from './turns.ts';

export interface PageQuery {
  format: 'conversation' | 'raw';
  /** Compaction segments from the end; 0 = all. */
  tail: number;
  before?: string;
  after?: string;
  /** At most this many entries in the page. */
  limit: number;
  /** Walk the whole chain for exact totals (the log is loaded whole). */
  exactTotals: boolean;
}

export interface Pagination {
  has_older_messages: boolean;
  total_message_count: number;
  returned_message_count: number;
  truncated_before_message?: string;
  total_compactions: number;
}

export interface Page {
  /** Oldest first. */
  entries: LogEntry[];
  pagination: Pagination;
}

export type PageResult =
  | { kind: 'page'; page: Page }
  | { kind: 'more' }
  | { kind: 'unknown_cursor'; cursor: 'before' | 'after'; uuid: string };

/** Whether an entry counts as a message of the page (conversation: a display entry with text). */
export function visible(entry: LogEntry, format: PageQuery['format']): boolean {
  if (entry.sidechain) return false;
  if (format === 'raw') return true;
  return DISPLAY_TYPES.has(entry.type) && turnOf(entry) !== undefined;
}

/** The active tip among the loaded entries. */
export function pickTip(entries: readonly LogEntry[]): LogEntry | undefined {
  const referenced = new Set<string>();
  for (const e of entries) {
    if (e.parentUuid) referenced.add(e.parentUuid);
    if (e.logicalParentUuid) referenced.add(e.logicalParentUuid);
  }
  let best: LogEntry[] = [];
  let bestTs = -Infinity;
  for (const e of entries) {
    if (e.uuid === '' || e.sidechain || referenced.has(e.uuid)) continue;
    const ts = e.timestamp ? Date.parse(e.timestamp) : NaN;
    const t = Number.isNaN(ts) ? -Infinity : ts;
    if (t > bestTs) {
      bestTs = t;
      best = [e];
    } else if (t === bestTs) best.push(e);
  }
  if (best.length <= 1) return best[0];
  const byUuid = indexOf(entries);
  const depth = (e: LogEntry): number => {
    let n = 0;
    const seen = new Set<string>();
    for (let cur: LogEntry | undefined = e; cur && !seen.has(cur.uuid); n++) {
      seen.add(cur.uuid);
      cur = cur.parentUuid ? byUuid.get(cur.parentUuid) : undefined;
    }
    return n;
  };
  // Longest branch, then the latest line (the later one in `best` wins a tie).
  let tip = best[0]!;
  let tipDepth = depth(tip);
  for (const e of best.slice(1)) {
    const d = depth(e);
    if (d >= tipDepth) {
      tip = e;
      tipDepth = d;
    }
  }
  return tip;
}

function indexOf(entries: readonly LogEntry[]): Map<string, LogEntry> {
  const byUuid = new Map<string, LogEntry>();
  for (const e of entries) if (e.uuid !== '') byUuid.set(e.uuid, e);
  return byUuid;
}

/**
 * The page `query` asks for, from `entries` (a suffix of the log; `complete` when it starts at the file's
 * start). Answers `more` when the walk needs entries before the loaded ones.
 */
export function claudePage(entries: readonly LogEntry[], complete: boolean, query: PageQuery): PageResult {
  const byUuid = indexOf(entries);
  const lineOf = new Map<LogEntry, number>();
  entries.forEach((e, i) => lineOf.set(e, i));
  const tip = pickTip(entries);
  const empty: Page = {
    entries: [],
    pagination: {
      has_older_messages: false,
      total_message_count: 0,
      returned_message_count: 0,
      total_compactions: 0,
    },
  };
  if (!tip) return complete ? { kind: 'page', page: empty } : { kind: 'more' };

  const collected: LogEntry[] = [];
  let cut = query.before === undefined;
  let boundaries = 0;
  let totalCompactions = 0;
  let total = 0;
  let full = false;
  let foundAfter = false;
  let hasOlder = false;
  const seen = new Set<string>();
  let cur: LogEntry | undefined = tip;
  while (cur) {
    if (seen.has(cur.uuid)) break; // a cycle in a damaged log ends the chain
    seen.add(cur.uuid);
    const shows = visible(cur, query.format);
    if (shows) total++;
    if (isCompactBoundary(cur)) totalCompactions++;
    if (query.after !== undefined && cur.uuid === query.after) {
      foundAfter = true;
      break;
    }
    if (!cut) {
      if (cur.uuid === query.before) cut = true;
    } else if (!full) {
      if (shows) {
        if (query.after === undefined && collected.length >= query.limit) {
          full = true;
          hasOlder = true;
        } else collected.push(cur);
      }
      if (!full && isCompactBoundary(cur)) {
        boundaries++;
        if (query.tail > 0 && boundaries >= query.tail) {
          full = true;
          hasOlder = cur.parentUuid !== null || cur.logicalParentUuid !== undefined;
        }
      }
    }
    if (full && !query.exactTotals) break;
    // Step to the parent: the physical one, else across a compaction.
    const parent: string | undefined = cur.parentUuid ?? cur.logicalParentUuid;
    if (parent === undefined) break;
    const next = byUuid.get(parent);
    if (next) {
      cur = next;
      continue;
    }
    if (!complete) return { kind: 'more' };
    if (cur.parentUuid === null && cur.logicalParentUuid !== undefined) {
      // The logical parent is not in the file: the line before the boundary continues the conversation.
      const line: number = lineOf.get(cur)!;
      cur = line > 0 ? entries[line - 1] : undefined;
      continue;
    }
    break; // a parent outside the file: the chain starts here
  }
  if (query.before !== undefined && !cut) {
    return complete || query.exactTotals
      ? { kind: 'unknown_cursor', cursor: 'before', uuid: query.before }
      : { kind: 'more' };
  }
  if (query.after !== undefined && !foundAfter) {
    return complete ? { kind: 'unknown_cursor', cursor: 'after', uuid: query.after } : { kind: 'more' };
  }
  collected.reverse();
  let page = collected;
  if (query.after !== undefined && collected.length > query.limit) page = collected.slice(0, query.limit);
  const pagination: Pagination = {
    has_older_messages: hasOlder,
    total_message_count: total,
    returned_message_count: page.length,
    total_compactions: totalCompactions,
  };
  if (page.length > 0 && hasOlder) pagination.truncated_before_message = page[0]!.uuid;
  return { kind: 'page', page: { entries: page, pagination } };
}
