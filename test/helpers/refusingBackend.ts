import { UnavailableError } from '../../actors/runtime/errors.ts';
import type { JournalDraft, Journal, JournalBackend } from '../../actors/runtime/journal/journal.ts';

/**
 * A backend whose logs refuse chosen appends with the journal's own 503 (`journal_unavailable`), as a
 * log whose disk or broker just failed would: `refuse(log name, draft)` decides per append, so a test
 * can fail one event type on one log at the exact step it is about. Everything else reaches `inner`.
 */
export function refusingBackend(
  inner: JournalBackend,
  refuse: (log: string, draft: JournalDraft) => boolean,
): JournalBackend {
  return {
    kind: inner.kind,
    close: () => inner.close(),
    open: async (location) => {
      const journal = await inner.open(location);
      const wrapped: Journal = {
        name: journal.name,
        append: (draft, options) =>
          refuse(journal.name, draft)
            ? Promise.reject(
                new UnavailableError(`journal ${journal.name}: injected refusal`, 'journal_unavailable'),
              )
            : journal.append(draft, options),
        list: (filter) => journal.list(filter),
        head: () => journal.head(),
        subscribe: (afterSeq) => journal.subscribe(afterSeq),
        close: () => journal.close(),
      };
      return wrapped;
    },
  };
}
