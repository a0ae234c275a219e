import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { GC_BIN, isolatedEnv, ROOT } from './gc.ts';
import { nodeChild } from '../../helpers/childEnv.ts';

/** A real supervisor run as `node bin/gc.js supervisor run` in a child process, with a private home. */
export interface SupervisorProc {
  /** The API base URL (stable across restarts: a restart reuses the port). */
  url: string;
  /** `$GC_HOME` of the supervisor; also what `gc` finds it through (supervisor.json). */
  home: string;
  /** A directory for city directories. */
  cities: string;
  /** The environment a `gc` client of this supervisor runs with (GC_HOME only: discovery finds it). */
  env: NodeJS.ProcessEnv;
  pid(): number | undefined;
  /** Everything the process wrote to stderr so far. */
  log(): string;
  /** SIGTERM (graceful) or SIGKILL (a crash), and wait for the exit. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<number | null>;
  /** Starts it again on the same port and home. */
  start(): Promise<void>;
  /** A JSON request to the API (mutations carry X-GC-Request). */
  call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown; headers: Headers }>;
}

export interface SupervisorProcOptions {
  natsUrl?: string | undefined;
  /** Extra environment for the supervisor process (e.g. the compose file's). */
  env?: NodeJS.ProcessEnv;
  /** Extra `supervisor run` arguments. */
  args?: string[];
  /** The SSE heartbeat interval (default 1s). */
  heartbeat?: string;
}

/**
 * Starts a supervisor child on a free port (`--port 0`, the URL read from supervisor.json) with a 200 ms
 * reconciler tick and a 1 s heartbeat (unless `heartbeat` says otherwise); `t` stops it and removes its directories.
 */
export async function startSupervisorProc(
  t: Test,
  opts: SupervisorProcOptions = {},
): Promise<SupervisorProc> {
  const root = await mkdtemp(join(tmpdir(), 'gc-cli-sup-'));
  const home = join(root, 'home');
  const cities = join(root, 'cities');
  let child: ChildProcess | undefined;
  let stderr = '';
  let port = 0;
  let url = '';

  const launch = async (): Promise<void> => {
    const args = [GC_BIN, 'supervisor', 'run', '--home', home, '--port', String(port), '--tick', '200ms'];
    args.push(
      '--heartbeat',
      opts.heartbeat ?? '1s',
      ...(opts.natsUrl ? ['--nats-url', opts.natsUrl] : []),
      ...(opts.args ?? []),
    );
    const proc = spawn(...nodeChild(args), {
      cwd: ROOT,
      env: isolatedEnv(home, opts.env ?? {}),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = proc;
    proc.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) throw new Error(`supervisor exited (${proc.exitCode}):\n${stderr}`);
      try {
        const rec = JSON.parse(await readFile(join(home, 'supervisor.json'), 'utf8')) as {
          pid: number;
          url: string;
        };
        if (rec.pid === proc.pid) {
          url = rec.url;
          port = Number(new URL(url).port);
          return;
        }
      } catch {
        // Not written yet.
      }
      await sleep(50);
    }
    proc.kill('SIGKILL');
    throw new Error(`supervisor did not record its URL within 30s:\n${stderr}`);
  };

  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<number | null> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return proc?.exitCode ?? null;
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    proc.kill(signal);
    return exited;
  };

  await launch();
  t.teardown(async () => {
    await stop('SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  return {
    get url() {
      return url;
    },
    home,
    cities,
    env: isolatedEnv(home),
    pid: () => child?.pid,
    log: () => stderr,
    stop,
    start: launch,
    call: async (method, path, body) => {
      const headers: Record<string, string> = method === 'GET' ? {} : { 'x-gc-request': 'test' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(url + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        body: text ? (JSON.parse(text) as unknown) : undefined,
        headers: res.headers,
      };
    },
  };
}
