/**
 * Reads a page of a Claude JSONL conversation log from its end: it loads a chunk, walks the chain, and loads
 * the previous chunk only when the walk needs it. Logs up to `exactBytes` are read whole so the totals are
 * exact; beyond, the first page costs about one chunk and the totals count what the walk reached (a lower
 * bound, with `has_older_messages` true).
 */
import { BackwardLog, DEFAULT_CHUNK_BYTES } from './backwardLog.ts';
import { claudePage, type Page, type PageQuery } from './claudePage.ts';
import { parseClaudeLine, type LogEntry } from './logEntry.ts';

export interface ReadOptions {
  chunkBytes?: number;
  /** Logs up to this size are read whole (exact totals). */
  exactBytes?: number;
}

export const DEFAULT_EXACT_BYTES = 8 * 1024 * 1024;

/** Thrown for a `before` or `after` cursor that names no message of the conversation. */
export class UnknownCursorError extends Error {
  constructor(
    readonly cursor: 'before' | 'after',
    readonly uuid: string,
  ) {
    super(`${cursor}: message ${JSON.stringify(uuid)} is not in the transcript`);
    this.name = 'UnknownCursorError';
  }
}

export interface ClaudeRead {
  page: Page;
  /** Offset just past the last complete line read: where a follower continues. */
  end: number;
}

/**
 * One page of the log at `path`.
 * @throws UnknownCursorError; the fs error when the log cannot be read (ENOENT when it does not exist).
 */
export async function readClaudePage(
  path: string,
  query: Omit<PageQuery, 'exactTotals'>,
  options: ReadOptions = {},
): Promise<ClaudeRead> {
  const log = await BackwardLog.open<LogEntry>(
    path,
    parseClaudeLine,
    options.chunkBytes ?? DEFAULT_CHUNK_BYTES,
  );
  try {
    const exactTotals = log.size <= (options.exactBytes ?? DEFAULT_EXACT_BYTES);
    if (exactTotals) await log.loadAll();
    for (;;) {
      const result = claudePage(log.entries, log.complete, { ...query, exactTotals });
      if (result.kind === 'page') return { page: result.page, end: log.end };
      if (result.kind === 'unknown_cursor') throw new UnknownCursorError(result.cursor, result.uuid);
      await log.extend();
    }
  } finally {
    await log.close();
  }
}
