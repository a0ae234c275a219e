import { execFile } from 'node:child_process';
import { execDoneDecider } from '../../machines/orders/fire.ts';
import type { Order } from '../../machines/orders/order.ts';
import type { CheckResult } from '../../machines/orders/schedule.ts';
import type { BeadStore } from '../beads/index.ts';
import { DEFAULT_CHECK_TIMEOUT_MS, runCheck } from './conditionCheck.ts';
import type { OrderBook } from './orderBook.ts';

/**
 * Runs an exec order's command (injectable for tests): in `cwd`, with `env` added to the supervisor's
 * own environment.
 */
export type ExecRunner = (
  command: string,
  opts: { cwd: string; timeoutMs: number; env: Record<string, string> },
) => Promise<ExecOutput>;

/** What an exec order's command left: its exit code and output. */
export interface ExecOutput {
  code: number;
  stdout: string;
  stderr: string;
}

const shell: ExecRunner = (command, { cwd, timeoutMs, env }) =>
  new Promise((resolve) => {
    const options = { cwd, timeout: timeoutMs, env: { ...process.env, ...env } };
    execFile('sh', ['-c', command], options, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });

/** Options of {@link OrderCommands}. */
export interface OrderCommandOptions {
  exec?: ExecRunner | undefined;
  /** How long a condition order's `check` may run before it is killed (default 10 s, upstream's). */
  checkTimeoutMs?: number | undefined;
  onError?: ((err: unknown) => void) | undefined;
}

/**
 * The commands orders run, each in its order's exec environment and directory (a rig order in its rig,
 * as upstream runs it in its store's root): an exec order's command, whose end closes its run in the bead
 * store, and a condition order's check. Effects: spawns processes.
 */
export class OrderCommands {
  readonly #running = new Set<Promise<void>>();
  /** Kills the checks under way at stop. */
  readonly #abort = new AbortController();

  constructor(
    private readonly book: OrderBook,
    private readonly store: BeadStore,
    private readonly clock: () => number,
    private readonly options: OrderCommandOptions,
  ) {}

  /**
   * Runs an exec order's command; its result closes the run `trackingId`, then `done` is called. Resolves
   * the command's output once its record is written (undefined when the command or the write failed: the
   * error went to `onError`); never rejects.
   */
  runExec(order: Order, trackingId: string, done: () => void): Promise<ExecOutput | undefined> {
    const exec = this.options.exec ?? shell;
    const started = this.clock();
    const env = this.book.execEnv(order, this.store.model.prefix);
    let output: ExecOutput | undefined;
    const p = exec(order.exec!, { cwd: env.GC_STORE_ROOT!, timeoutMs: order.timeoutMs, env })
      .then((out) => {
        output = out;
        return this.store.decide(
          execDoneDecider(order, trackingId, out.code === 0, { ...out, ms: this.clock() - started }),
          { actor: 'controller' },
        );
      })
      .then(done)
      .catch((err) => {
        output = undefined;
        this.options.onError?.(err);
      })
      .finally(() => this.#running.delete(p));
    this.#running.add(p);
    return p.then(() => output);
  }

  /** Runs a condition order's `check` under the check timeout; never rejects. */
  runCheck(order: Order): Promise<CheckResult> {
    if (order.trigger.kind !== 'condition') return Promise.resolve({ kind: 'failed', error: 'no check' });
    const env = this.book.execEnv(order, this.store.model.prefix);
    return runCheck(order.trigger.check, {
      cwd: env.GC_STORE_ROOT!,
      env,
      timeoutMs: this.options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
      signal: this.#abort.signal,
    });
  }

  /** Kills the checks under way (the service is stopping). */
  abort(): void {
    this.#abort.abort();
  }

  /** Resolves once the exec commands under way have ended and their records are written. */
  async settled(): Promise<void> {
    await Promise.all(this.#running);
  }
}
