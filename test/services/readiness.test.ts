/**
 * Readiness and stopping of supervised service processes, without an app: a process that never listens,
 * or whose health path never answers 2xx, is killed at the ready timeout and restarted (its reason in
 * `service.exited`); a process that ignores SIGTERM is killed after the stop grace.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import { startWorkspaceServices } from '../../actors/workspaceServices/startWorkspaceServices.ts';
import { eventually, waitForEvent } from '../helpers/supervisor.ts';
import { FIXTURE_COMMAND, isServiceEvent, payloadOf } from './harness.ts';

const node = (code: string) => ({
  kind: 'proxy_process',
  process: { command: [process.execPath, '-e', code] },
});

const dir = await mkdtemp(join(tmpdir(), 'gc-svc-ready-'));
const backend = new FileJournalBackend();
const journal = await backend.open({
  name: `r${randomBytes(3).toString('hex')}`,
  file: join(dir, '.gc', 'events.jsonl'),
});
const log = new LogRuntime(journal);
const services = await startWorkspaceServices(
  {
    name: journal.name,
    path: dir,
    log,
    config: {
      agents: [],
      services: [
        { name: 'mute', ...node('setInterval(() => {}, 1000)') },
        { name: 'sick', kind: 'proxy_process', process: { command: FIXTURE_COMMAND, health_path: '/nope' } },
        {
          name: 'stubborn',
          ...node(
            "require('net').createServer().listen(process.env.GC_SERVICE_SOCKET); process.on('SIGTERM', () => {})",
          ),
        },
      ],
    },
  },
  { policy: { initialMs: 50, readyTimeoutMs: 1500, stopGraceMs: 300 } },
);
t.teardown(async () => {
  await services.stop();
  await log.close();
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});

t.test('a process that never listens is killed at the ready timeout and restarted', async (t) => {
  const exited = await waitForEvent(journal, isServiceEvent('service.exited', 'mute'), 0, 15_000);
  t.match(payloadOf(exited), {
    reason: 'service mute did not become ready within 1500 ms',
    signal: 'SIGKILL',
    failures: 1,
  });
  await waitForEvent(journal, isServiceEvent('service.started', 'mute'), exited.seq, 15_000);
});

t.test('a health path that never answers 2xx keeps the service from being ready', async (t) => {
  const exited = await waitForEvent(journal, isServiceEvent('service.exited', 'sick'), 0, 15_000);
  t.match(payloadOf(exited).reason, 'did not become ready');
  t.equal(services.get('sick').local_state === 'ready', false);
});

t.test('a process that ignores SIGTERM is killed after the stop grace', async (t) => {
  const ready = await waitForEvent(journal, isServiceEvent('service.ready', 'stubborn'), 0, 15_000);
  const pid = payloadOf(ready).pid as number;
  const from = await journal.head();
  const began = Date.now();
  await services.restart('stubborn');
  t.ok(Date.now() - began >= 300, 'SIGTERM was ignored: the grace passed before SIGKILL');
  t.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the old process is gone');
  const stopped = await waitForEvent(journal, isServiceEvent('service.stopped', 'stubborn'), from);
  t.equal(payloadOf(stopped).reason, 'restart');
  t.equal(services.get('stubborn').local_state, 'ready', 'a fresh one is ready');
});

t.test('a process left running by a supervisor that was killed is ended at the next start', async (t) => {
  const home = await mkdtemp(join(tmpdir(), 'gc-svc-left-'));
  const b = new FileJournalBackend();
  const j = await b.open({ name: 'left', file: join(home, '.gc', 'events.jsonl') });
  const runtime = new LogRuntime(j);
  const tables = [
    { name: 'keeper', ...node("require('net').createServer().listen(process.env.GC_SERVICE_SOCKET)") },
  ];
  const start = () =>
    startWorkspaceServices(
      { name: 'left', path: home, log: runtime, config: { agents: [], services: tables } },
      { policy: { initialMs: 50, stopGraceMs: 300 } },
    );
  // The first manager is never stopped: as if its supervisor had been SIGKILLed.
  const crashed = await start();
  const first = await waitForEvent(j, isServiceEvent('service.ready', 'keeper'), 0, 15_000);
  const orphan = payloadOf(first).pid as number;
  const next = await start();
  const second = await waitForEvent(j, isServiceEvent('service.ready', 'keeper'), first.seq, 15_000);
  t.not(payloadOf(second).pid, orphan);
  await eventually(() => {
    try {
      process.kill(orphan, 0);
      return false;
    } catch {
      return true;
    }
  });
  t.pass('the process the killed supervisor left is gone');
  await next.stop();
  await crashed.stop();
  await runtime.close();
  await b.close();
  await rm(home, { recursive: true, force: true });
});
