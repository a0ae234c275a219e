/**
 * The transcripts of one city's sessions: upstream's `GET /session/{id}/transcript` (and what the session
 * stream and the sub-agent routes read), over the session service's records and runtime. The log is found by
 * `logLocator.ts`; Claude logs are read from the end a chunk at a time (`claudeReader.ts`); Codex and Gemini
 * files are read whole and converted. No log: an ACP session answers the conversation its updates told
 * (acpConversation.ts), paged the same way; another running session its screen as one `output` turn in
 * `format: text`, any other an empty conversation.
 */
import { readFile } from 'node:fs/promises';
import { NotFoundError, ValidationError } from '../../runtime/errors.ts';
import type { SessionRecord } from '../../../machines/sessions/sessionRecord.ts';
import type { SessionService } from '../sessionService.ts';
import { claudePage, type Page, type PageQuery, type Pagination } from './claudePage.ts';
import { readClaudePage, UnknownCursorError, type ReadOptions } from './claudeReader.ts';
import { codexEntries } from './codexLog.ts';
import { geminiEntries } from './geminiLog.ts';
import { locateLog, type LogLocation } from './logLocator.ts';
import { turnOf, type OutputTurn } from './turns.ts';

export type TranscriptFormat = 'conversation' | 'raw';

export interface TranscriptQuery {
  format?: string;
  tail?: number;
  before?: string;
  after?: string;
  limit?: number;
}

/** Upstream SessionTranscriptGetResponse; raw frames stay the provider's JSON text until the route writes them. */
export interface TranscriptResult {
  id: string;
  template: string;
  provider: string;
  format: 'conversation' | 'raw' | 'text';
  turns?: OutputTurn[];
  /** The provider's own JSON text of each raw frame (`format=raw`). */
  rawMessages?: string[];
  pagination?: Pagination;
}

export const DEFAULT_TRANSCRIPT_LIMIT = 500;
export const MAX_TRANSCRIPT_LIMIT = 5000;
/** Lines of screen a log-less running session answers. */
const PEEK_LINES = 100;

export interface TranscriptOptions extends ReadOptions {
  /** Home of the agent CLIs' folders (tests). */
  home?: string;
}

/** `format` as upstream reads it: conversation (default) or raw. @throws ValidationError otherwise. */
export function transcriptFormat(format: string | undefined): TranscriptFormat {
  if (format === undefined || format === '' || format === 'conversation') return 'conversation';
  if (format === 'raw' || format === 'jsonl') return 'raw';
  throw new ValidationError(`format must be conversation or raw, not ${JSON.stringify(format)}`, 'invalid', {
    errors: [{ location: 'query.format', message: 'expected conversation or raw', value: format }],
  });
}

/** A page of `entries` read whole (Codex, Gemini). */
function wholePage(entries: Parameters<typeof claudePage>[0], query: Omit<PageQuery, 'exactTotals'>): Page {
  const result = claudePage(entries, true, { ...query, exactTotals: true });
  if (result.kind === 'unknown_cursor') throw new UnknownCursorError(result.cursor, result.uuid);
  if (result.kind === 'more') throw new Error('unreachable: a whole log never needs more');
  return result.page;
}

/**
 * One page of the log at `loc`, with where a follower continues (`end`: a byte offset for Claude, an entry
 * count for the whole-file formats).
 * @throws UnknownCursorError; the fs error when the log cannot be read.
 */
export async function readLogPage(
  loc: LogLocation,
  query: Omit<PageQuery, 'exactTotals'>,
  options: ReadOptions = {},
): Promise<{ page: Page; end: number }> {
  if (loc.family === 'claude') return readClaudePage(loc.path, query, options);
  const text = await readFile(loc.path, 'utf8');
  const entries = loc.family === 'codex' ? codexEntries(text) : geminiEntries(text);
  return { page: wholePage(entries, query), end: entries.length };
}

export class SessionTranscripts {
  constructor(
    readonly service: SessionService,
    readonly options: TranscriptOptions = {},
  ) {}

  /** Resolves a target as every session route does (closed sessions included). @throws NotFoundError. */
  resolve(target: string): SessionRecord {
    return this.service.book.resolve(target);
  }

  /** Whether the runtime was last seen running the session. */
  running(s: SessionRecord): boolean {
    return !s.closed && this.service.reconciler.seen.get(s.sessionName)?.running === true;
  }

  /** The session's log, if one can be found. */
  locate(s: SessionRecord): Promise<LogLocation | undefined> {
    return locateLog(s, {
      ...(this.options.home ? { home: this.options.home } : {}),
      env: { ...process.env, ...this.service.sessionEnv },
      openSessions: this.service.book.openSessions(),
    });
  }

  /**
   * The transcript page `query` asks for.
   * @throws NotFoundError (unknown session, or a `before`/`after` that names no message); ValidationError.
   */
  async transcript(target: string, query: TranscriptQuery): Promise<TranscriptResult> {
    const s = this.resolve(target);
    const format = transcriptFormat(query.format);
    const head = { id: s.id, template: s.template, provider: s.provider };
    const loc = await this.locate(s);
    if (!loc) {
      // An ACP session's conversation as the protocol told it, paged as a log is.
      const told = this.service.runtime.conversation?.(s.sessionName);
      if (told) {
        const page = wholePage(told, {
          format,
          tail: query.tail ?? 0,
          limit: Math.min(query.limit ?? DEFAULT_TRANSCRIPT_LIMIT, MAX_TRANSCRIPT_LIMIT),
          ...(query.before !== undefined ? { before: query.before } : {}),
          ...(query.after !== undefined ? { after: query.after } : {}),
        });
        if (format === 'raw')
          return {
            ...head,
            format,
            rawMessages: page.entries.map((e) => e.raw),
            pagination: page.pagination,
          };
        const turns = page.entries.map(turnOf).filter((t): t is OutputTurn => t !== undefined);
        return { ...head, format, turns, pagination: page.pagination };
      }
      if (this.running(s)) {
        const screen = await this.service.runtime.peek(s.sessionName, PEEK_LINES).catch(() => '');
        return { ...head, format: 'text', turns: screen === '' ? [] : [{ role: 'output', text: screen }] };
      }
      return { ...head, format: 'conversation', turns: [] };
    }
    const limit = Math.min(query.limit ?? DEFAULT_TRANSCRIPT_LIMIT, MAX_TRANSCRIPT_LIMIT);
    let page: Page;
    try {
      ({ page } = await readLogPage(
        loc,
        {
          format,
          tail: query.tail ?? 0,
          limit,
          ...(query.before !== undefined ? { before: query.before } : {}),
          ...(query.after !== undefined ? { after: query.after } : {}),
        },
        this.options,
      ));
    } catch (err) {
      if (err instanceof UnknownCursorError) throw new NotFoundError(err.message);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...head, format, turns: [] };
      throw err;
    }
    if (format === 'raw')
      return { ...head, format, rawMessages: page.entries.map((e) => e.raw), pagination: page.pagination };
    const turns = page.entries.map(turnOf).filter((t): t is OutputTurn => t !== undefined);
    return { ...head, format, turns, pagination: page.pagination };
  }
}
