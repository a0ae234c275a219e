import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { nodeChild } from '../../helpers/childEnv.ts';

/** The repository root (tests run the built `gc`, as a user would). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const GC_BIN = join(ROOT, 'bin', 'gc.js');

if (!existsSync(join(ROOT, 'dist', 'cli', 'commands', 'index.js'))) {
  throw new Error('dist/ is missing: run `npm run build` before the CLI tests');
}

/** What a finished `gc` run left behind. */
export interface GcResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface GcOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Kill the process (SIGKILL) after this long; the test then sees signal SIGKILL. Default 20 s. */
  killAfterMs?: number;
}

/**
 * An environment for `gc` that never reaches a real user's supervisor: a private GC_HOME, no GC_API/GC_CITY.
 * Tests add what they need.
 */
export function isolatedEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GC_HOME: home, ...extra };
  for (const k of ['GC_API', 'GC_CITY', 'GC_NATS_URL', 'GC_PORT', 'GC_BIND'])
    if (!(k in extra)) delete env[k];
  return env;
}

/** Runs `node bin/gc.js …args` to completion, capturing stdout and stderr separately. */
export function runGc(args: string[], opts: GcOptions = {}): Promise<GcResult> {
  const child = spawnGc(args, opts);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 20_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Starts `gc` without waiting for it (for --follow and --watch). */
export function spawnGc(args: string[], opts: GcOptions = {}): ChildProcess {
  return spawn(...nodeChild([GC_BIN, ...args]), {
    env: opts.env ?? process.env,
    cwd: opts.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * A long-running `gc` whose stdout lines and stderr are collected as they come; `waitForLines(n)` resolves
 * when at least n lines have arrived. `stop()` ends it with SIGTERM and resolves the final result.
 */
export class GcProcess {
  readonly lines: string[] = [];
  stderr = '';
  readonly #child: ChildProcess;
  readonly #closed: Promise<GcResult>;
  #waiters: (() => void)[] = [];

  constructor(args: string[], opts: GcOptions = {}) {
    this.#child = spawnGc(args, opts);
    createInterface({ input: this.#child.stdout! }).on('line', (line) => {
      this.lines.push(line);
      for (const w of this.#waiters) w();
    });
    this.#child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      this.stderr += s;
      for (const w of this.#waiters) w();
    });
    this.#closed = new Promise((resolve) =>
      this.#child.once('close', (code, signal) =>
        resolve({ code, signal, stdout: this.lines.map((l) => l + '\n').join(''), stderr: this.stderr }),
      ),
    );
  }

  /** Resolves once `check()` holds (re-checked on output and every 25 ms); rejects after `ms`. */
  async until(check: () => boolean, ms = 15_000, what = 'condition'): Promise<void> {
    if (check()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        clearInterval(poll);
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out waiting for ${what}; lines=${this.lines.length} stderr=${this.stderr}`));
      }, ms);
      const waiter = (): void => {
        if (!check()) return;
        clearTimeout(timer);
        clearInterval(poll);
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve();
      };
      // Conditions on the server side (a reconnect) change without any output: poll them too.
      const poll = setInterval(waiter, 25);
      this.#waiters.push(waiter);
    });
  }

  waitForLines(n: number, ms?: number): Promise<void> {
    return this.until(() => this.lines.length >= n, ms, `${n} lines`);
  }

  waitForStderr(re: RegExp, ms?: number): Promise<void> {
    return this.until(() => re.test(this.stderr), ms, `stderr ${re}`);
  }

  /** The stdout lines so far, as text. */
  stdout(): string {
    return this.lines.map((l) => l + '\n').join('');
  }

  /** The process's result once it exits by itself. */
  get done(): Promise<GcResult> {
    return this.#closed;
  }

  async stop(): Promise<GcResult> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGTERM');
    return this.#closed;
  }
}

/** Parses stdout as JSON Lines; every line must be one JSON object. */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const v: unknown = JSON.parse(l);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`not a JSON object: ${l}`);
      return v as Record<string, unknown>;
    });
}
