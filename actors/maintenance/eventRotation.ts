import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordOf } from '../../machines/recorded.ts';
import type { EventRotateResponse } from '../../schemas/maintenance.ts';
import type { Journal, JournalEvent } from '../runtime/journal/journal.ts';
import type { Logger } from '../runtime/logger.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import { copyLog } from './logCopy.ts';

/** Upstream's no-op reason, word for word. */
export const EMPTY_REASON = 'active log is empty';
/** How long `wait` waits for the archive (upstream's 30 s); after that it answers `pending`. */
export const WAIT_CAP_MS = 30_000;

/** What rotation needs of its city. */
export interface EventRotationContext {
  name: string;
  path: string;
  journal: Journal;
  log: LogRuntime;
  clock?: () => Date;
  logger?: Logger;
}

/** The file whose presence says the city has rotated (so its start looks up the last anchor). Pure. */
const markerOf = (path: string): string => join(path, '.gc', 'events.rotated');

/** `20261125T130600Z`: an instant as upstream's archive names write it. Pure. */
const stamp = (d: Date): string =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/**
 * `POST /events/rotate` on a log that is the city's state (docs/compatibility.md): rotation writes the
 * segment since the previous rotation, `first..last`, to a gzipped archive
 * `.gc/events-<time>-seq-<first>-<last>.jsonl.gz` and records upstream's anchor `events.rotated`
 * (`prior_archive`, `prior_first_seq`, `prior_last_seq`; seq continues) as the first event of the next
 * segment. The live log (file or JetStream stream) is never cut: every service of the city is a fold of it
 * from seq 1, so dropping the archived part would lose beads, sessions and the rest at the next start. An
 * anchor whose archive is missing (a crash before it was written) gets it written at the next start.
 * One rotation at a time. Effects: reads the log, writes archives, records events.
 */
export class EventRotation {
  /** The last seq archived by a previous rotation (0: none). */
  #lastArchived = 0;
  #running: Promise<unknown> = Promise.resolve();
  readonly #pending = new Set<Promise<boolean>>();
  readonly #clock: () => Date;

  private constructor(private readonly ctx: EventRotationContext) {
    this.#clock = ctx.clock ?? (() => new Date());
  }

  /** Reads the last anchor; writes its archive again if it is missing. Effects: reads the log, may write. */
  static async start(ctx: EventRotationContext): Promise<EventRotation> {
    const rotation = new EventRotation(ctx);
    // A city that never rotated has no marker: its start reads nothing of its log.
    const rotated = await access(markerOf(ctx.path)).then(
      () => true,
      () => false,
    );
    if (!rotated) return rotation;
    const [anchor] = await ctx.journal.list({ type: 'events.rotated', order: 'desc', limit: 1 });
    const payload = anchor?.payload as
      { prior_archive?: string; prior_first_seq?: number; prior_last_seq?: number } | undefined;
    if (
      payload?.prior_archive &&
      payload.prior_last_seq !== undefined &&
      payload.prior_first_seq !== undefined
    ) {
      rotation.#lastArchived = payload.prior_last_seq;
      const { prior_archive: file, prior_first_seq: first, prior_last_seq: last } = payload;
      const missing = await access(file).then(
        () => false,
        () => true,
      );
      if (missing) void rotation.#archive(first, last, file);
    }
    return rotation;
  }

  /**
   * Rotates: records the anchor, then writes the archive (awaited up to {@link WAIT_CAP_MS} when `wait`).
   * @throws what the log runtime throws for the anchor's append (nothing is rotated then).
   */
  rotate(wait: boolean): Promise<EventRotateResponse> {
    const next = this.#running.then(() => this.#rotate(wait));
    this.#running = next.catch(() => undefined);
    return next;
  }

  /** Waits for archives being written. */
  async stop(): Promise<void> {
    await this.#running;
    await Promise.all(this.#pending);
  }

  async #rotate(wait: boolean): Promise<EventRotateResponse> {
    const now = this.#clock();
    if (this.ctx.log.head >= this.#lastArchived + 1) {
      // Before the first anchor can land: a marker without an anchor only costs the next start a lookup.
      await mkdir(join(this.ctx.path, '.gc'), { recursive: true });
      await writeFile(markerOf(this.ctx.path), '');
    }
    const first = this.#lastArchived + 1;
    const decided = await this.ctx.log.run<{ anchor: JournalEvent; file: string; last: number } | undefined>(
      () => {
        // Decided against the head the anchor is appended at: the archive ends exactly before it.
        const last = this.ctx.log.head;
        if (last < first) return { records: [], commit: () => undefined };
        const file = join(this.ctx.path, '.gc', `events-${stamp(now)}-seq-${first}-${last}.jsonl.gz`);
        return {
          records: [
            recordOf({
              type: 'events.rotated',
              actor: 'events',
              message: `rotated to ${file}`,
              payload: { prior_archive: file, prior_first_seq: first, prior_last_seq: last },
            }),
          ],
          commit: (stored: readonly JournalEvent[]) => ({ anchor: stored[0]!, file, last }),
        };
      },
    );
    if (!decided) return { rotated: false, reason: EMPTY_REASON };
    const { anchor, file, last } = decided;
    this.#lastArchived = last;
    const written = this.#archive(first, last, file);
    let complete = false;
    if (wait) {
      let timer: NodeJS.Timeout | undefined;
      complete = await Promise.race([
        written,
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), WAIT_CAP_MS))),
      ]).finally(() => clearTimeout(timer));
    }
    return {
      rotated: true,
      archive: {
        path: file,
        first_seq: first,
        last_seq: last,
        compression_status: complete ? 'complete' : 'pending',
      },
      anchor_event: { seq: anchor.seq, type: anchor.type, ts: anchor.ts },
    };
  }

  /**
   * Writes an archive in the background; resolves true once it is whole, false when it failed (logged; the
   * next start writes it again).
   */
  #archive(first: number, last: number, file: string): Promise<boolean> {
    const job = copyLog(this.ctx.journal, first, last, file, { gzip: true }).then(
      () => true,
      (err: unknown) => {
        this.ctx.logger?.warn({ err, city: this.ctx.name, file }, 'event archive not written');
        return false;
      },
    );
    this.#pending.add(job);
    void job.finally(() => this.#pending.delete(job));
    return job;
  }
}
