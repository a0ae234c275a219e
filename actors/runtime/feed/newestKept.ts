import type { Journal, JournalEvent, ListFilter } from '../journal/journal.ts';

/**
 * The newest `limit` events of `journal` matching `filter` that `keep` accepts, newest first. It reads
 * pages of `limit` backwards until it has them or the log runs out, so events `keep` refuses never shorten
 * a page (when it accepts everything this is one tail read). `limit` must be positive.
 *
 * Effects: reads the journal.
 */
export async function newestKept(
  journal: Journal,
  filter: ListFilter,
  limit: number,
  keep: (event: JournalEvent) => boolean,
): Promise<JournalEvent[]> {
  const kept: JournalEvent[] = [];
  let beforeSeq = filter.beforeSeq;
  for (;;) {
    const page = await journal.list({
      ...filter,
      ...(beforeSeq !== undefined ? { beforeSeq } : {}),
      order: 'desc',
      limit,
    });
    for (const event of page) {
      if (!keep(event)) continue;
      kept.push(event);
      if (kept.length === limit) return kept;
    }
    if (page.length < limit) return kept;
    beforeSeq = page.at(-1)!.seq;
  }
}
