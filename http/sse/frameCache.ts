import type { Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';

/**
 * The serialized `data:` of recent events, per log: N streams at a log's live edge serialize each event
 * once instead of N times (a log is append-only, so a seq always renders the same). Bounded per log;
 * held weakly by the journal object, so a closed log's frames go with it. One per app and frame kind
 * (StreamRegistry), not module-global: two apps in one process share nothing.
 */
export class FrameCache {
  readonly #logs = new WeakMap<Journal, { source: string; frames: Map<number, string> }>();

  constructor(readonly perLog = 1024) {}

  /** The data of `event` of `journal` (read as `source`), rendered by `render` on a miss. */
  data(
    journal: Journal,
    source: string,
    event: JournalEvent,
    render: (event: JournalEvent, source: string) => string,
  ): string {
    let log = this.#logs.get(journal);
    if (!log || log.source !== source) this.#logs.set(journal, (log = { source, frames: new Map() }));
    let data = log.frames.get(event.seq);
    if (data === undefined) {
      data = render(event, source);
      log.frames.set(event.seq, data);
      // Maps iterate in insertion order: the first key is the oldest frame.
      if (log.frames.size > this.perLog) log.frames.delete(log.frames.keys().next().value!);
    }
    return data;
  }
}
