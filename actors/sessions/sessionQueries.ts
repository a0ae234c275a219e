import type { SeenRuntime } from '../../machines/sessions/plan.ts';
import { ValidationError } from '../runtime/errors.ts';
import type { Logger } from '../runtime/logger.ts';
import type { RuntimeProvider } from './runtime/provider.ts';
import type { SessionListQuery, SessionPage, SessionView } from './sessionApi.ts';
import type { SessionBook } from './sessionBook.ts';
import type { SessionReconciler } from './sessionReconciler.ts';
import { sessionView } from './sessionView.ts';

const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;

/**
 * The sessions as the API reads them: the book's records joined with the reconciler's latest look at the
 * runtime (at most a second old), and a peek at a running one's screen when asked.
 */
export class SessionQueries {
  constructor(
    private readonly book: SessionBook,
    private readonly reconciler: SessionReconciler,
    private readonly runtime: RuntimeProvider,
    private readonly logger: Logger,
    private readonly city: string,
  ) {}

  async list(query: SessionListQuery): Promise<SessionPage> {
    const seen = await this.#observed(1000);
    let records = query.state ? this.book.allSessions() : this.book.openSessions();
    records = records.reverse(); // newest first
    if (query.template) records = records.filter((s) => s.template === query.template);
    // Views (they join the observation) are built for the page only, unless the state filter needs them.
    const matching: { id: string; view?: SessionView; record: (typeof records)[number] }[] = [];
    for (const record of records) {
      if (!query.state) {
        matching.push({ id: record.id, record });
        continue;
      }
      const view = sessionView(record, seen.get(record.sessionName));
      if (view.state === query.state) matching.push({ id: record.id, view, record });
    }
    const limit = Math.min(query.limit && query.limit > 0 ? query.limit : DEFAULT_PAGE, MAX_PAGE);
    let start = 0;
    if (query.cursor) {
      const at = matching.findIndex((v) => v.id === query.cursor);
      if (at < 0)
        throw new ValidationError(
          `cursor ${JSON.stringify(query.cursor)} is not a session of this list`,
          'invalid',
          { errors: [{ location: 'query.cursor', message: 'unknown cursor', value: query.cursor }] },
        );
      start = at;
    }
    const items = matching
      .slice(start, start + limit)
      .map((m) => m.view ?? sessionView(m.record, seen.get(m.record.sessionName)));
    if (query.peek) await Promise.all(items.map((v) => this.#peekInto(v, 5)));
    const next = matching[start + limit];
    return { items, total: matching.length, ...(next ? { next_cursor: next.id } : {}) };
  }

  async get(id: string, options: { peek?: boolean; peekLines?: number } = {}): Promise<SessionView> {
    const s = this.book.resolve(id);
    const seen = await this.#observed(1000);
    const view = sessionView(s, seen.get(s.sessionName));
    if (options.peek) await this.#peekInto(view, options.peekLines ?? 20);
    return view;
  }

  async #observed(maxAgeMs: number): Promise<ReadonlyMap<string, SeenRuntime>> {
    try {
      return await this.reconciler.observe(maxAgeMs);
    } catch (err) {
      this.logger.warn({ err, city: this.city }, 'session runtime observation failed');
      return this.reconciler.seen;
    }
  }

  async #peekInto(view: SessionView, lines: number): Promise<void> {
    if (!view.running) return;
    try {
      view.last_output = await this.runtime.peek(view.session_name, lines);
    } catch {
      // gone between the observation and the peek: no preview
    }
  }
}
