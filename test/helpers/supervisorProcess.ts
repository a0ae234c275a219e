import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { nodeChild } from './childEnv.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST_MAIN = join(ROOT, 'dist', 'http', 'main.js');
const SOURCE_MAIN = join(ROOT, 'http', 'main.ts');
const SOURCE_DIRS = ['actors', 'http', 'machines', 'schemas'];

/** One HTTP answer with its body parsed as JSON when it is JSON (else the raw text). */
export interface ProcReply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  body: any;
  headers: Headers;
}

/** A real supervisor (`http/main.ts`) in a child process, with everything under a private temp dir. */
export interface SupervisorProcess {
  /** The API base URL of the current run (a restart keeps the port when it can). */
  readonly url: string;
  /** `$GC_HOME`. */
  readonly home: string;
  /** `$HOME` of the child: a place for city directories. */
  readonly cities: string;
  /** The child's pid while it runs. */
  readonly pid: number | undefined;
  /** What runs: `dist` (built, fresh) or `tsx` (the sources). */
  readonly entry: 'dist' | 'tsx';
  /** Resolves when the current run is up (supervisor.json names its pid); rejects if it died first. */
  readonly up: Promise<void>;
  /** Everything the child wrote to stderr (all runs). */
  log(): string;
  /** Starts a run on the same home (and port); resolves once it is up. */
  start(): Promise<void>;
  /** Sends `signal` and waits for the exit (SIGKILL: a crash; SIGTERM: a graceful stop). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Resident set size of the running child, from /proc (undefined when it is not running). */
  rssBytes(): number | undefined;
  /** One JSON request against the current run; mutations carry X-GC-Request. Throws on a network error. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ProcReply>;
}

export interface SupervisorProcessOptions {
  /** Extra environment (GC_NATS_URL, GC_BIND, GC_ALLOW_MUTATIONS, …). */
  env?: NodeJS.ProcessEnv;
  tick?: string;
  heartbeat?: string;
}

const newestMtime = (dir: string): number => {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
};

/**
 * The built entry when it is at least as new as every source it is built from (a stale build would
 * test old code), else the sources through tsx. The build starts several times faster, which matters
 * for tests that restart the supervisor again and again.
 */
function pickEntry(): { entry: 'dist' | 'tsx'; args: string[] } {
  try {
    const built = statSync(DIST_MAIN).mtimeMs;
    if (SOURCE_DIRS.every((d) => newestMtime(join(ROOT, d)) <= built)) {
      return { entry: 'dist', args: [DIST_MAIN] };
    }
  } catch {
    // Not built: run the sources.
  }
  return { entry: 'tsx', args: ['--import', 'tsx', SOURCE_MAIN] };
}

/**
 * Starts a supervisor child process with `GC_HOME` and `HOME` in a fresh temp dir, on 127.0.0.1 port 0
 * (the URL is read from `$GC_HOME/supervisor.json`); later runs reuse the port. `t` kills it (SIGKILL) and
 * removes the dir on teardown.
 * Throws when the child exits or records no URL within 60 s (the error carries its stderr).
 */
export async function startSupervisorProcess(
  t: Test,
  opts: SupervisorProcessOptions = {},
): Promise<SupervisorProcess> {
  const root = mkdtempSync(join(tmpdir(), 'gc-fault-'));
  const home = join(root, 'gchome');
  const cities = join(root, 'home');
  mkdirSync(cities, { recursive: true });
  const infoFile = join(home, 'supervisor.json');
  const { entry, args } = pickEntry();
  let child: ChildProcess | undefined;
  let port = 0;
  let url = '';
  let stderr = '';
  let up: Promise<void> = Promise.resolve();

  const launch = async (): Promise<void> => {
    rmSync(infoFile, { force: true });
    const proc = spawn(...nodeChild(args), {
      cwd: ROOT,
      env: {
        ...process.env,
        GC_HOME: home,
        HOME: cities,
        GC_BIND: '127.0.0.1',
        GC_PORT: String(port),
        GC_TICK: opts.tick ?? '200ms',
        GC_HEARTBEAT: opts.heartbeat ?? '1s',
        GC_NATS_URL: '',
        ...opts.env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = proc;
    proc.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-64 * 1024)));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        throw new Error(`supervisor exited (${proc.exitCode ?? proc.signalCode}):\n${stderr}`);
      }
      try {
        const info = JSON.parse(readFileSync(infoFile, 'utf8')) as { pid: number; url: string };
        if (info.pid === proc.pid) {
          url = info.url;
          port = Number(new URL(url).port);
          return;
        }
      } catch {
        // Not written yet.
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    proc.kill('SIGKILL');
    throw new Error(`supervisor recorded no URL within 60 s:\n${stderr}`);
  };

  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill(signal);
    // A graceful stop that hangs is a finding of its own; the test still must end.
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };

  up = launch();
  await up;
  t.teardown(async () => {
    await stop('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  return {
    get url() {
      return url;
    },
    home,
    cities,
    get pid() {
      return child?.pid;
    },
    entry,
    get up() {
      return up;
    },
    log: () => stderr,
    start: () => (up = launch()),
    stop,
    rssBytes: () => {
      const pid = child?.pid;
      if (pid === undefined) return undefined;
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m ? Number(m[1]) * 1024 : undefined;
      } catch {
        return undefined;
      }
    },
    call: async (method, path, body, headers = {}) => {
      const h: Record<string, string> = method === 'GET' ? {} : { 'x-gc-request': 'fault-test' };
      if (body !== undefined) h['content-type'] = 'application/json';
      const res = await fetch(url + path, {
        method,
        headers: { ...h, ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        // Not JSON: keep the text.
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}
