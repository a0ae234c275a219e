import type { JournalEvent, ListFilter } from './journal.ts';

/** True when `event` passes every field of `filter` except paging (`limit`, `order`). Pure. */
export function matchesFilter(event: JournalEvent, filter: ListFilter): boolean {
  if (filter.afterSeq !== undefined && event.seq <= filter.afterSeq) return false;
  if (filter.beforeSeq !== undefined && event.seq >= filter.beforeSeq) return false;
  if (filter.type !== undefined && event.type !== filter.type) return false;
  if (filter.typePrefix !== undefined && !event.type.startsWith(filter.typePrefix)) return false;
  if (filter.actor !== undefined && event.actor !== filter.actor) return false;
  if (filter.since !== undefined && Date.parse(event.ts) < filter.since.getTime()) return false;
  return true;
}

/**
 * Applies a filter to events already in seq order, honouring `order` and `limit`. Pure; used by
 * backends that hold (or have read) a range of the log in memory.
 */
export function applyFilter(events: readonly JournalEvent[], filter: ListFilter = {}): JournalEvent[] {
  const limit = filter.limit && filter.limit > 0 ? filter.limit : Infinity;
  const out: JournalEvent[] = [];
  if (filter.order === 'desc') {
    for (let i = events.length - 1; i >= 0 && out.length < limit; i--) {
      const e = events[i]!;
      if (matchesFilter(e, filter)) out.push(e);
    }
  } else {
    for (const e of events) {
      if (out.length >= limit) break;
      if (matchesFilter(e, filter)) out.push(e);
    }
  }
  return out;
}
