import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import type { CityServiceFactory } from '../../actors/runtime/cityServices.ts';
import type { HostProbe } from '../../actors/supervisor/hostProbe.ts';
import type { Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { runSupervisor, type RunningSupervisor, type RunSupervisorOptions } from '../../http/main.ts';

/** A host with exactly the given executables, files and command outputs (deterministic probes). */
export function fakeHost(
  home: string,
  opts: {
    bins?: string[];
    files?: Record<string, string>;
    runs?: Record<string, { code: number; stdout: string }>;
  } = {},
): HostProbe {
  const bins = opts.bins ?? ['sh'];
  return {
    home,
    which: async (bin) => (bins.includes(bin) ? `/fake/bin/${bin}` : undefined),
    readText: async (path) => opts.files?.[path],
    env: () => undefined,
    run: async (file, args) => opts.runs?.[[file, ...args].join(' ')] ?? { code: 127, stdout: '' },
  };
}

/** A latch: `wait` resolves once `open()` was called. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

// The test-only services the supervisor tests plug in, registered as every family registers its own.
declare module '../../actors/runtime/cityServices.ts' {
  interface CityServiceRegistry {
    gated: { gated: true };
    stuck: object;
  }
}

/** A city service that starts (and stops) only when its gates open (none given: at once). */
export function gatedService(
  start?: { wait: Promise<void> },
  stop?: { wait: Promise<void> },
  phase: CityServiceFactory['phase'] = 'starting_bead_store',
): CityServiceFactory<'gated'> {
  return {
    name: 'gated',
    phase,
    start: async () => {
      await start?.wait;
      return { service: { gated: true }, stop: async () => void (await stop?.wait) };
    },
  };
}

export interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  body: any;
  headers: Headers;
}

export interface TestSupervisor {
  url: string;
  /** The directory everything of this supervisor lives under. */
  root: string;
  /** `$HOME` of creates (relative dirs resolve here). */
  home: string;
  gcHome: string;
  running: RunningSupervisor;
  log: Journal;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  close(): Promise<void>;
}

export interface StartOptions {
  natsUrl?: string;
  root?: string;
  tickMs?: number;
  options?: Omit<RunSupervisorOptions, 'host'> & { host?: HostProbe };
}

/** Starts a supervisor on a random loopback port with everything under a fresh temp dir; `t` tears it down. */
export async function startTestSupervisor(t: Test, opts: StartOptions = {}): Promise<TestSupervisor> {
  const root = opts.root ?? mkdtempSync(join(tmpdir(), 'gc-sup-'));
  const home = join(root, 'home');
  const gcHome = join(root, 'gchome');
  mkdirSync(home, { recursive: true });
  const config = loadConfig(
    { GC_HOME: gcHome, GC_PORT: '0', GC_BIND: '127.0.0.1', GC_TICK: `${opts.tickMs ?? 2000}ms` },
    opts.natsUrl ? { natsUrl: opts.natsUrl } : {},
  );
  const running = await runSupervisor(config, { host: fakeHost(home), ...opts.options });
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await running.close();
  };
  t.teardown(async () => {
    await close();
    if (!opts.root) rmSync(root, { recursive: true, force: true });
  });
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const init: RequestInit = {
      method,
      headers: { ...(method === 'GET' ? {} : { 'x-gc-request': '1' }), ...headers },
    };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const res = await fetch(running.url + path, init);
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
  };
  return { url: running.url, root, home, gcHome, running, log: running.supervisor.log.journal, call, close };
}

/** The first event after `afterSeq` matching `pred`; rejects after `timeoutMs`. */
export async function waitForEvent(
  journal: Journal,
  pred: (e: JournalEvent) => boolean,
  afterSeq = 0,
  timeoutMs = 5000,
): Promise<JournalEvent> {
  const sub = journal.subscribe(afterSeq);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      (async () => {
        for await (const e of sub) if (pred(e)) return e;
        throw new Error('subscription ended');
      })(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no matching event on ${journal.name} within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await sub.close();
  }
}

const TERMINAL = (type: string): boolean => type === 'request.failed' || type.startsWith('request.result.');

/** The terminal event of `requestId` once it is recorded. */
export const waitForTerminal = (log: Journal, requestId: string, timeoutMs = 5000): Promise<JournalEvent> =>
  waitForEvent(
    log,
    (e) => TERMINAL(e.type) && (e.payload as { request_id?: string }).request_id === requestId,
    0,
    timeoutMs,
  );

/** Every terminal event recorded for `requestId`. */
export async function terminalsOf(log: Journal, requestId: string): Promise<JournalEvent[]> {
  return (await log.list()).filter(
    (e) => TERMINAL(e.type) && (e.payload as { request_id?: string }).request_id === requestId,
  );
}

/** Resolves when `check` holds, polling briefly; rejects after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Creates city `name` under `s.home` through the API and waits for its create to succeed. */
export async function createCity(s: TestSupervisor, name: string): Promise<void> {
  const res = await s.call('POST', '/v0/city', { dir: join(s.home, name), start_command: 'echo hi' });
  if (res.status !== 202) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  const terminal = await waitForTerminal(s.log, res.body.request_id, 15_000);
  if (terminal.type !== 'request.result.city.create')
    throw new Error(`create failed: ${JSON.stringify(terminal)}`);
}
