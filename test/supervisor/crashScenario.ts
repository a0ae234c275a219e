import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { openJournalBackend } from '../../actors/runtime/journal/openBackend.ts';
import { supervisorLogFile } from '../../actors/supervisor/supervisorLog.ts';

/**
 * Durability of async requests across SIGKILL: a supervisor child process is killed at random moments
 * while 50 clients create a city each and then unregister it; after every kill it is restarted on the
 * same $GC_HOME. Every request that was answered 202 must end with exactly one terminal event, and no
 * request may ever get two. `CRASH_CITIES` / `CRASH_KILLS` shrink it for a quick local run.
 */
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CITIES = Number(process.env.CRASH_CITIES ?? 50);
const KILLS = Number(process.env.CRASH_KILLS ?? 4);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo));
const TERMINAL = (type: string) => type === 'request.failed' || type.startsWith('request.result.');

/** Events of a JSONL log written by another process (a torn last line is skipped, never repaired). */
function rawEvents(file: string): JournalEvent[] {
  if (!existsSync(file)) return [];
  const out: JournalEvent[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      if (line.trim()) out.push(JSON.parse(line) as JournalEvent);
    } catch {
      // torn tail of a killed writer
    }
  }
  return out;
}

/** Reads the supervisor log another process writes: raw lines for the file backend, the stream for JetStream. */
async function logReader(gcHome: string, natsUrl: string | undefined) {
  const file = supervisorLogFile(gcHome);
  if (!natsUrl) return { read: async () => rawEvents(file), close: async () => undefined };
  const backend = openJournalBackend({ natsUrl });
  return {
    read: async () => (await backend.open({ name: SUPERVISOR_LOG, file })).list(),
    close: () => backend.close(),
  };
}

/** The scenario, against the file journal or (with `natsUrl`) JetStream. */
export async function crashScenario(t: Test, natsUrl?: string): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'gc-crash-'));
  const gcHome = join(root, 'gchome');
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const env = {
    ...process.env,
    GC_HOME: gcHome,
    HOME: home,
    GC_PORT: '0',
    GC_BIND: '127.0.0.1',
    GC_NATS_URL: natsUrl ?? '',
  };
  const infoFile = join(gcHome, 'supervisor.json');

  let child: ChildProcess | undefined;
  let url = '';
  let up: Promise<void> = Promise.resolve();
  let log = '';

  const startChild = (): Promise<void> => {
    rmSync(infoFile, { force: true });
    const proc = spawn(process.execPath, ['--import', 'tsx', join(repo, 'http', 'main.ts')], {
      cwd: repo,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child = proc;
    return (async () => {
      for (;;) {
        if (proc.exitCode !== null) throw new Error(`supervisor exited ${proc.exitCode}: ${log}`);
        try {
          const info = JSON.parse(readFileSync(infoFile, 'utf8')) as { pid: number; url: string };
          if (info.pid === proc.pid) {
            url = info.url;
            return;
          }
        } catch {
          // not written yet
        }
        await sleep(20);
      }
    })();
  };

  const killChild = async (signal: NodeJS.Signals): Promise<void> => {
    const proc = child!;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill(signal);
    await exited;
  };

  /** One HTTP call against whichever supervisor is up; undefined when the connection broke mid-call. */
  const call = async (
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: { request_id: string } } | undefined> => {
    await up;
    try {
      const res = await fetch(url + path, {
        method,
        headers: { 'x-gc-request': '1', ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as { request_id: string } };
    } catch {
      return undefined;
    }
  };

  const accepted = new Set<string>();
  const outcomes = new Map<string, number>();
  const count = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
  const client = async (i: number): Promise<void> => {
    const dir = join(home, `city-${i}`);
    await sleep(rand(0, 2500));
    for (;;) {
      const r = await call('POST', '/v0/city', { dir, start_command: 'true' });
      if (!r) {
        await up;
        continue;
      }
      count(`create ${r.status}`);
      if (r.status === 202) accepted.add(r.body.request_id);
      else if (r.status !== 409) throw new Error(`create ${i}: ${r.status} ${JSON.stringify(r.body)}`);
      break;
    }
    await sleep(rand(0, 1500));
    for (;;) {
      const r = await call('POST', `/v0/city/city-${i}/unregister`);
      if (!r) {
        await up;
        continue;
      }
      count(`unregister ${r.status}`);
      if (r.status === 202) accepted.add(r.body.request_id);
      else if (r.status === 409) {
        await sleep(50);
        continue;
      } else if (r.status !== 404) throw new Error(`unregister ${i}: ${r.status} ${JSON.stringify(r.body)}`);
      break;
    }
  };

  up = startChild();
  await up;
  const started = Date.now();
  const clients = Promise.all(Array.from({ length: CITIES }, (_, i) => client(i)));
  let kills = 0;
  for (; kills < KILLS; kills++) {
    await sleep(rand(50, 1200));
    await killChild('SIGKILL');
    up = startChild();
    await up;
  }
  await clients;

  // Quiet: everything accepted finishes on the last run.
  const reader = await logReader(gcHome, natsUrl);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = await reader.read();
    const done = new Set(
      events.filter((e) => TERMINAL(e.type)).map((e) => (e.payload as { request_id: string }).request_id),
    );
    const open = events.filter(
      (e) => e.type === 'request.accepted' && !done.has((e.payload as { request_id: string }).request_id),
    );
    if (open.length === 0 && [...accepted].every((id) => done.has(id))) break;
    if (Date.now() > deadline) break;
    await sleep(100);
  }
  const exitCode = new Promise((r) => child!.once('exit', (code) => r(code)));
  await killChild('SIGTERM');
  t.equal(await exitCode, 0, 'SIGTERM stops the supervisor cleanly');
  t.notOk(existsSync(infoFile), 'a clean stop removes supervisor.json');

  await reader.close();
  // The final read goes through the backend itself: the log it left must open cleanly.
  const backend = openJournalBackend({ natsUrl });
  const events = await (await backend.open({ name: SUPERVISOR_LOG, file: supervisorLogFile(gcHome) })).list();
  await backend.close();
  const terminals = new Map<string, number>();
  for (const e of events.filter((e) => TERMINAL(e.type))) {
    const id = (e.payload as { request_id: string }).request_id;
    terminals.set(id, (terminals.get(id) ?? 0) + 1);
  }
  const acceptedInLog = events
    .filter((e) => e.type === 'request.accepted')
    .map((e) => (e.payload as { request_id: string }).request_id);

  t.equal(kills, KILLS, `killed the supervisor ${KILLS} times`);
  // Under load many first attempts lose their answer to a kill (the retry then sees 409/404); what
  // matters is that enough 202s were seen for the exactly-once checks below to mean something.
  t.ok(accepted.size >= CITIES / 5, `${accepted.size} requests answered 202`);
  t.same(
    [...accepted].filter((id) => terminals.get(id) !== 1),
    [],
    'every 202 has exactly one terminal event',
  );
  t.same(
    [...terminals].filter(([, n]) => n > 1),
    [],
    'no request has two terminal events',
  );
  t.same(
    acceptedInLog.filter((id) => terminals.get(id) !== 1),
    [],
    'every durably accepted request finished once',
  );
  t.same(
    events
      .filter((e) => e.type === 'supervisor.started')
      .map((e) => (e.payload as { previous_exit: string }).previous_exit),
    ['unknown', ...Array<string>(KILLS).fill('crash')],
  );
  t.equal(events.at(-1)?.type, 'supervisor.stopped');
  t.comment(JSON.stringify(Object.fromEntries(outcomes)));
  t.comment(
    `${accepted.size} accepted, ${terminals.size} terminated, ${kills} kills in ${Date.now() - started} ms`,
  );
  if (!t.passing()) t.comment(log);
}
