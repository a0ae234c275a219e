import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { nextRunAt, pushHistory, type MaintenanceConfig } from '../../machines/maintenance/schedule.ts';
import { recordOf } from '../../machines/recorded.ts';
import type { MaintenanceRunBody, MaintenanceStatusBody } from '../../schemas/maintenance.ts';
import { ConflictError, UnavailableError } from '../runtime/errors.ts';
import { FileJournal } from '../runtime/journal/fileJournal.ts';
import type { Journal } from '../runtime/journal/journal.ts';
import type { Logger } from '../runtime/logger.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import { copyLog } from './logCopy.ts';

/** Snapshots kept by the prune stage (the newest). */
export const SNAPSHOTS_KEPT = 4;
/** The smoke test's bound (upstream's 5 s on its `SELECT COUNT(*)`). */
const SMOKE_TIMEOUT_MS = 5000;

type Stage = 'backup' | 'gc' | 'smoke-test' | 'prune';

class StageError extends Error {
  constructor(
    readonly stage: Stage,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** What the maintenance of one city needs. */
export interface StoreMaintenanceContext {
  name: string;
  path: string;
  journal: Journal;
  log: LogRuntime;
  config: MaintenanceConfig;
  clock?: () => Date;
  logger?: Logger;
  /** 0.9…1.1 (default: random), scales the interval after the last run. */
  jitter?: () => number;
}

/** `20261125T130600.123Z`: an instant as a file name. Pure. */
const stamp = (d: Date): string => d.toISOString().replace(/[-:]/g, '');

const sizeOf = async (file: string | undefined): Promise<number> =>
  file === undefined
    ? 0
    : await stat(file).then(
        (s) => s.size,
        () => 0,
      );

/**
 * Upstream's Dolt maintenance cycle mapped onto a store that is the city's event log (docs/compatibility.md):
 * `backup` copies the log up to its head into `.gc/maintenance/snapshots/<time>/events.jsonl`; `gc` removes
 * what is unreferenced (`*.partial` leftovers of interrupted snapshots and archives: an append-only log
 * itself holds no garbage); `smoke-test` opens the snapshot as a log and checks it holds every seq up to the
 * head; `prune` keeps the newest {@link SNAPSHOTS_KEPT} snapshots. One run at a time (a second is a 409);
 * the outcome is `gc.store.maintenance.done` or `.failed` on the city log and in a history of 16.
 * Scheduled every `[maintenance.dolt] interval` when enabled. Effects: reads the log, writes and removes
 * files under `.gc/`, records events, keeps a timer.
 */
export class StoreMaintenance {
  #history: MaintenanceRunBody[] = [];
  #inFlight: { startedAt: string; done: Promise<MaintenanceRunBody> } | undefined;
  #lastRunAt: number | undefined;
  #next: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #clock: () => Date;

  private constructor(private readonly ctx: StoreMaintenanceContext) {
    this.#clock = ctx.clock ?? (() => new Date());
  }

  /**
   * Reads when the last run finished from the city log (the history itself is this process's) and, when
   * enabled, schedules the next run. Effects: reads the log; a timer.
   */
  static async start(ctx: StoreMaintenanceContext): Promise<StoreMaintenance> {
    const m = new StoreMaintenance({ ...ctx });
    // Only a schedule needs the last run: a disabled city's start reads nothing of its log.
    if (!ctx.config.enabled) return m;
    await m.#readLastRun();
    m.#schedule();
    return m;
  }

  /**
   * Takes a hand edit of `[maintenance.dolt]` while the city runs: the new schedule (or none) from now,
   * as a restart would set it. Effects: may read the log; the timer.
   */
  async reconfigure(config: MaintenanceConfig): Promise<void> {
    const before = this.ctx.config;
    if (before.enabled === config.enabled && before.intervalMs === config.intervalMs) return;
    this.ctx.config = config;
    if (config.enabled && !before.enabled) await this.#readLastRun();
    if (!this.#inFlight) this.#schedule();
  }

  async #readLastRun(): Promise<void> {
    const ctx = this.ctx;
    const last = await Promise.all(
      ['gc.store.maintenance.done', 'gc.store.maintenance.failed'].map((type) =>
        ctx.journal.list({ type, order: 'desc', limit: 1 }),
      ),
    );
    const times = last.flat().map((e) => Date.parse(e.ts));
    if (times.length > 0) this.#lastRunAt = Math.max(...times);
  }

  status(): MaintenanceStatusBody {
    const { enabled, intervalMs } = this.ctx.config;
    const lastRun = this.#history[this.#history.length - 1];
    return {
      enabled,
      interval_seconds: enabled ? Math.round(intervalMs / 1000) : 0,
      in_flight: this.#inFlight !== undefined,
      ...(this.#inFlight ? { in_flight_start: this.#inFlight.startedAt } : {}),
      ...(lastRun ? { last_run: lastRun } : {}),
      ...(this.#next !== undefined ? { next_scheduled: new Date(this.#next).toISOString() } : {}),
      history: [...this.#history],
    };
  }

  /**
   * Starts a run now; `done` settles with its outcome (a failed stage is an outcome, not a rejection).
   * @throws UnavailableError (503 `maintenance_disabled`) when `[maintenance.dolt]` is not enabled;
   *   ConflictError (409) while a run is in flight, naming its start.
   */
  trigger(): { startedAt: string; done: Promise<MaintenanceRunBody> } {
    if (!this.ctx.config.enabled)
      throw new UnavailableError(
        'store maintenance is not enabled for this city ([maintenance.dolt] enabled = true in city.toml)',
        'maintenance_disabled',
      );
    if (this.#closed) throw new UnavailableError(`city ${this.ctx.name} is stopping`);
    if (this.#inFlight)
      throw new ConflictError(`maintenance run already in flight (started_at ${this.#inFlight.startedAt})`);
    const started = this.#clock();
    const startedAt = started.toISOString();
    const done = this.#run(started).finally(() => {
      this.#inFlight = undefined;
      this.#schedule();
    });
    this.#inFlight = { startedAt, done };
    return this.#inFlight;
  }

  /** Stops scheduling and waits for a run in flight. */
  async stop(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#inFlight?.done;
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    this.#next = undefined;
    const { enabled, intervalMs } = this.ctx.config;
    if (!enabled || this.#closed) return;
    const now = this.#clock().getTime();
    const jitter = this.ctx.jitter?.() ?? 0.9 + Math.random() * 0.2;
    this.#next = nextRunAt(this.#lastRunAt, intervalMs, now, jitter);
    // setTimeout holds at most 2^31-1 ms; a later run is re-planned when this one fires.
    const delay = Math.min(this.#next - now, 2 ** 31 - 1);
    this.#timer = setTimeout(() => {
      if (this.#inFlight) return;
      if (this.#clock().getTime() < this.#next!) return this.#schedule();
      try {
        this.trigger();
      } catch (err) {
        this.ctx.logger?.warn({ err, city: this.ctx.name }, 'scheduled maintenance did not start');
      }
    }, delay);
    this.#timer.unref();
  }

  async #run(started: Date): Promise<MaintenanceRunBody> {
    const { journal, path } = this.ctx;
    const logFile = journal instanceof FileJournal ? journal.file : undefined;
    const before = await sizeOf(logFile);
    const snapshotDir = join(path, '.gc', 'maintenance', 'snapshots', stamp(started));
    let run: MaintenanceRunBody;
    try {
      const head = await journal.head();
      const snapshot = join(snapshotDir, 'events.jsonl');
      await this.#stage('backup', () => copyLog(journal, 1, head, snapshot));
      await this.#stage('gc', () => removePartials(join(path, '.gc')));
      await this.#stage('smoke-test', () => smokeTest(snapshot, head));
      await this.#stage('prune', () => prune(join(path, '.gc', 'maintenance', 'snapshots')));
      run = this.#outcome(started, 'done', before, await sizeOf(logFile), snapshotDir);
    } catch (err) {
      const failure = err instanceof StageError ? err : new StageError('backup', err);
      run = this.#outcome(
        started,
        failure.stage,
        before,
        await sizeOf(logFile),
        snapshotDir,
        failure.message,
      );
    }
    this.#history = pushHistory(this.#history, run);
    this.#lastRunAt = Date.parse(run.finished_at);
    await this.#record(run).catch((err: unknown) =>
      this.ctx.logger?.warn({ err, city: this.ctx.name }, 'maintenance outcome not recorded'),
    );
    return run;
  }

  async #stage(stage: Stage, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (err) {
      throw new StageError(stage, err);
    }
  }

  #outcome(
    started: Date,
    stage: string,
    before: number,
    after: number,
    snapshotDir: string,
    err?: string,
  ): MaintenanceRunBody {
    const finished = this.#clock();
    return {
      started_at: started.toISOString(),
      finished_at: finished.toISOString(),
      duration_s: (finished.getTime() - started.getTime()) / 1000,
      stage,
      ...(err !== undefined ? { err } : {}),
      before_bytes: before,
      after_bytes: after,
      snapshot_path: snapshotDir,
    };
  }

  #record(run: MaintenanceRunBody): Promise<void> {
    const draft =
      run.stage === 'done'
        ? recordOf({
            type: 'gc.store.maintenance.done',
            actor: 'controller',
            payload: {
              before_bytes: run.before_bytes,
              after_bytes: run.after_bytes,
              duration_s: run.duration_s,
              snapshot_path: run.snapshot_path ?? '',
            },
          })
        : recordOf({
            type: 'gc.store.maintenance.failed',
            actor: 'controller',
            payload: {
              duration_s: run.duration_s,
              error_msg: run.err ?? '',
              stage: run.stage,
              ...(run.snapshot_path ? { snapshot_path: run.snapshot_path } : {}),
            },
          });
    return this.ctx.log.run(() => ({ records: [draft], commit: () => undefined }));
  }
}

/** Removes the `*.partial` files of interrupted copies under `dir` (recursively). */
async function removePartials(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  await Promise.all(
    entries
      .filter((e) => e.isFile() && e.name.endsWith('.partial'))
      .map((e) => rm(join(e.parentPath, e.name), { force: true })),
  );
}

/** Opens the snapshot as a log: it must hold every seq 1..head, within the smoke test's bound. */
async function smokeTest(file: string, head: number): Promise<void> {
  const check = async (): Promise<void> => {
    const copy = await FileJournal.open({ name: 'snapshot', file }, { warn: () => undefined });
    try {
      const got = await copy.head();
      let count = 0;
      for (let after = 0; ;) {
        const page = await copy.list({ afterSeq: after, limit: 10_000 });
        if (page.length === 0) break;
        count += page.length;
        after = page[page.length - 1]!.seq;
      }
      if (got !== head || count !== head)
        throw new Error(`snapshot holds ${count} events up to seq ${got}, expected ${head}`);
    } finally {
      await copy.close();
    }
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`smoke test took over ${SMOKE_TIMEOUT_MS} ms`)),
          SMOKE_TIMEOUT_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Keeps the newest {@link SNAPSHOTS_KEPT} snapshot directories (their names sort by time). */
async function prune(dir: string): Promise<void> {
  const names = (await readdir(dir)).sort();
  await Promise.all(
    names.slice(0, -SNAPSHOTS_KEPT).map((n) => rm(join(dir, n), { recursive: true, force: true })),
  );
}
