/**
 * The live view of one session (`GET /session/{id}/stream`), independent of HTTP: frames `turn`
 * (conversation) or `message` (raw) as the agent's log grows, `activity` (idle / in-turn) when it changes,
 * `pending` once per approval prompt the screen shows. The log is followed by a file watch (polling where
 * none can be set); the screen is looked at only while the agent is not idle, every `pendingPollMs`.
 *
 * Frames that carry messages have an `id`, the uuid of the newest entry they cover: a client that reconnects
 * with it as `Last-Event-ID` gets the entries after it and nothing twice (upstream's stream cannot resume).
 * Activity and pending frames carry no id; they are sent again on every connection.
 */
import type { SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import type { PendingInteraction } from './pending/detect.ts';
import { readPending } from './pending/readPending.ts';
import { logActivity, type Activity } from './transcript/activity.ts';
import { visible } from './transcript/claudePage.ts';
import { UnknownCursorError } from './transcript/claudeReader.ts';
import { codexEntries } from './transcript/codexLog.ts';
import { geminiEntries } from './transcript/geminiLog.ts';
import { LogFollower } from './transcript/logFollower.ts';
import { parseClaudeLine, type LogEntry } from './transcript/logEntry.ts';
import type { LogLocation } from './transcript/logLocator.ts';
import {
  DEFAULT_TRANSCRIPT_LIMIT,
  readLogPage,
  type SessionTranscripts,
  type TranscriptFormat,
} from './transcript/sessionTranscripts.ts';
import { turnOf, type OutputTurn } from './transcript/turns.ts';
import { readFile } from 'node:fs/promises';

export interface StreamFrame {
  event: 'turn' | 'message' | 'activity' | 'pending';
  /** One line of JSON. */
  data: string;
  id?: string;
}

export interface StreamSink {
  send(frame: StreamFrame): void;
  ready(): Promise<void>;
  readonly closed: boolean;
}

export interface SessionStreamOptions {
  /** Polling where no file watch can be set, and of the screen while there is no log yet (upstream: 2 s). */
  pollMs?: number;
  /** Screen checks for an approval prompt while the agent is not idle. */
  pendingPollMs?: number;
  /** Tests: poll the log instead of watching it. */
  forcePolling?: boolean;
}

const SCREEN_LINES = 100;

export class SessionStream {
  readonly #format: TranscriptFormat;
  /** The stream follows the conversation an ACP runtime told (no log was found when it began). */
  #onAcp = false;
  readonly #pollMs: number;
  readonly #pendingMs: number;
  #loc: LogLocation | undefined;
  #follower: LogFollower | undefined;
  #lastId: string | undefined;
  #sent = new Set<string>();
  #count = 0;
  #activity: Activity | undefined;
  #pending: PendingInteraction | undefined;
  #screen = '';
  #timers: NodeJS.Timeout[] = [];
  #busy: Promise<void> = Promise.resolve();
  #done: (() => void) | undefined;

  constructor(
    private readonly transcripts: SessionTranscripts,
    private readonly session: SessionRecord,
    format: TranscriptFormat,
    private readonly sink: StreamSink,
    options: SessionStreamOptions = {},
  ) {
    this.#format = format;
    this.#pollMs = options.pollMs ?? 2000;
    this.#pendingMs = options.pendingPollMs ?? 500;
    this.forcePolling = options.forcePolling ?? false;
  }
  private readonly forcePolling: boolean;

  /** How the log is followed (figures and tests). */
  get mode(): 'watch' | 'poll' | 'screen' {
    return this.#follower?.mode ?? 'screen';
  }

  #head(): string {
    const s = this.session;
    return `"id":${JSON.stringify(s.id)},"template":${JSON.stringify(s.template)},"provider":${JSON.stringify(s.provider)}`;
  }

  /** Sends the entries (oldest first) as one frame; its id is the newest entry's uuid. */
  #sendEntries(entries: readonly LogEntry[]): void {
    const chained = entries.filter((e) => e.uuid !== '' && !e.sidechain);
    if (chained.length > 0) this.#lastId = chained[chained.length - 1]!.uuid;
    const fresh = entries.filter((e) => visible(e, this.#format) && !this.#sent.has(e.uuid));
    for (const e of fresh) if (e.uuid !== '') this.#sent.add(e.uuid);
    if (this.#sent.size > 10_000) this.#sent = new Set([...this.#sent].slice(-5_000));
    if (fresh.length === 0) return;
    const id = this.#lastId;
    if (this.#format === 'raw') {
      const data = `{${this.#head()},"format":"raw","messages":[${fresh.map((e) => e.raw).join(',')}]}`;
      this.sink.send({ event: 'message', data, ...(id ? { id } : {}) });
    } else {
      const turns = fresh.map(turnOf).filter((t): t is OutputTurn => t !== undefined);
      this.#sendTurns('conversation', turns, id);
    }
  }

  #sendTurns(format: string, turns: OutputTurn[], id?: string): void {
    const data = `{${this.#head()},"format":${JSON.stringify(format)},"turns":${JSON.stringify(turns)}}`;
    this.sink.send({ event: 'turn', data, ...(id ? { id } : {}) });
  }

  #sendActivity(activity: Activity | undefined): void {
    if (activity === undefined || activity === this.#activity) return;
    this.#activity = activity;
    this.sink.send({ event: 'activity', data: JSON.stringify({ activity }) });
  }

  /** The page after `after` (all of it, page by page), else the newest page. */
  async #catchUp(after: string | undefined): Promise<number> {
    const loc = this.#loc!;
    let cursor = after;
    for (;;) {
      try {
        const { page, end } = await readLogPage(loc, {
          format: this.#format,
          tail: 0,
          limit: DEFAULT_TRANSCRIPT_LIMIT,
          ...(cursor !== undefined ? { after: cursor } : {}),
        });
        this.#sendEntries(page.entries);
        if (cursor === undefined || page.entries.length < DEFAULT_TRANSCRIPT_LIMIT) return end;
        cursor = page.entries[page.entries.length - 1]!.uuid;
      } catch (err) {
        // The resume point is gone (the log was rewritten): start over from the newest page.
        if (err instanceof UnknownCursorError && cursor !== undefined) cursor = undefined;
        else if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        else throw err;
      }
    }
  }

  /** A closed session: one snapshot of its conversation, then idle, then the end. */
  async snapshot(): Promise<void> {
    this.#loc = await this.transcripts.locate(this.session);
    if (this.#loc) await this.#catchUp(undefined);
    this.#sendActivity('idle');
  }

  /**
   * Streams until the sink closes or the session closes. `lastEventId` resumes after that message.
   * Never throws: a failure ends the stream (the client reconnects with its Last-Event-ID).
   */
  async run(lastEventId?: string): Promise<void> {
    const ended = new Promise<void>((resolve) => (this.#done = resolve));
    try {
      this.#loc = await this.transcripts.locate(this.session);
      if (this.#loc) await this.#startFollowing(lastEventId);
      else await this.#screenTick();
      this.#timers.push(setInterval(() => this.#wake(() => this.#pendingTick()), this.#pendingMs));
      if (!this.#loc)
        this.#timers.push(setInterval(() => this.#wake(() => this.#screenTick()), this.#pollMs));
      await ended;
    } catch {
      // ends the stream; the client resumes from its last id
    } finally {
      this.close();
    }
  }

  async #startFollowing(lastEventId: string | undefined): Promise<void> {
    const loc = this.#loc!;
    const end = await this.#catchUp(lastEventId);
    this.#count = end;
    if (loc.family === 'claude') this.#sendActivity(await logActivity(loc.path));
    this.#follower = new LogFollower(
      loc.path,
      loc.family === 'claude' ? end : 0,
      () => this.#wake(() => this.#grow()),
      {
        pollMs: this.#pollMs,
        forcePolling: this.forcePolling,
      },
    );
    await this.#follower.start();
    // Lines written between the page read and the watch are not missed.
    this.#wake(() => this.#grow());
  }

  /** Runs `step` after the one in progress; wakes during a step coalesce into one more run. */
  #wake(step: () => Promise<void>): void {
    if (this.sink.closed) return this.close();
    this.#busy = this.#busy.then(async () => {
      if (this.sink.closed) return this.close();
      try {
        await this.sink.ready();
        await step();
      } catch {
        this.close();
      }
    });
  }

  async #grow(): Promise<void> {
    const loc = this.#loc!;
    const follower = this.#follower!;
    if (loc.family !== 'claude') {
      const text = await readFile(loc.path, 'utf8').catch(() => '');
      const entries = loc.family === 'codex' ? codexEntries(text) : geminiEntries(text);
      if (entries.length < this.#count) this.#count = 0;
      this.#sendEntries(entries.slice(this.#count));
      this.#count = entries.length;
      return;
    }
    const growth = await follower.read();
    if (growth.kind === 'reset') {
      // Rewritten or replaced: only what was never sent goes out.
      follower.seek(await this.#catchUp(undefined));
    } else if (growth.lines.length > 0) {
      this.#sendEntries(growth.lines.map(parseClaudeLine).filter((e): e is LogEntry => e !== undefined));
    } else return;
    this.#sendActivity(await logActivity(loc.path));
  }

  /** No log yet: the screen stands in for it (and the log is looked for again). */
  async #screenTick(): Promise<void> {
    // A stream that sent the ACP conversation stays on it: the log's entries would repeat its turns.
    this.#loc = this.#onAcp ? undefined : await this.transcripts.locate(this.session);
    if (this.#loc) {
      for (const t of this.#timers.splice(1)) clearInterval(t);
      await this.#startFollowing(undefined);
      return;
    }
    // ACP: the conversation its updates told, each entry once it is complete.
    const told = this.transcripts.service.runtime.conversation?.(this.session.sessionName, {
      complete: true,
    });
    if (told) {
      if (told.length > 0) this.#onAcp = true;
      return this.#sendEntries(told);
    }
    const screen = await this.transcripts.service.runtime
      .peek(this.session.sessionName, SCREEN_LINES)
      .catch(() => '');
    if (screen === this.#screen) return;
    this.#screen = screen;
    if (this.#format === 'raw') {
      const message = { role: 'assistant', content: [{ type: 'text', text: screen }] };
      this.sink.send({
        event: 'message',
        data: `{${this.#head()},"format":"raw","messages":[${JSON.stringify(message)}]}`,
      });
    } else this.#sendTurns('text', [{ role: 'output', text: screen }]);
  }

  /** While the agent is not idle: is there an approval prompt on its screen? */
  async #pendingTick(): Promise<void> {
    const now = this.transcripts.service.book.find(this.session.id);
    if (!now || now.closed) {
      this.#sendActivity('idle');
      return this.close();
    }
    if (this.#activity === 'idle' && !this.#pending) return;
    let pending: PendingInteraction | undefined;
    try {
      pending = await readPending(this.transcripts.service.runtime, this.session.sessionName);
    } catch {
      return;
    }
    if (pending && pending.request_id !== this.#pending?.request_id) {
      this.#pending = pending;
      this.sink.send({ event: 'pending', data: JSON.stringify(pending) });
    } else if (!pending && this.#pending) {
      this.#pending = undefined;
      // The prompt was answered: the turn goes on until the log says otherwise.
      this.#activity = undefined;
      this.#sendActivity('in-turn');
      if (this.#loc?.family === 'claude') this.#sendActivity(await logActivity(this.#loc.path));
    }
  }

  /** Stops watching and polling; `run` returns. Idempotent. */
  close(): void {
    for (const t of this.#timers.splice(0)) clearInterval(t);
    this.#follower?.close();
    this.#done?.();
  }
}
