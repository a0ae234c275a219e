/**
 * A city's stop and unregister end every session it started (real supervisor, real tmux, the mock agent):
 * each session's process is interrupted, given `[daemon] shutdown_timeout`, and stopped, and the city's
 * tmux server is gone; the unregistered city's directory stays. (A supervisor restart instead adopts running
 * sessions: sessions.e2e.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import { agentSupervisor, createMockCity } from '../agents/agentsKit.ts';
import { eventually, waitForTerminal, type TestSupervisor } from '../helpers/supervisor.ts';
import { hasTmux } from './e2eKit.ts';

/** The pids of the panes on city `city`'s tmux server; empty when the server is gone. */
function panePids(s: TestSupervisor, city: string): number[] {
  try {
    const out = execFileSync(
      'tmux',
      ['-L', tmuxSocketFor(city, s.gcHome), 'list-panes', '-a', '-F', '#{pane_pid}'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    return out.trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A running supervisor with city `city` (mock agent `scout`) and one session started by hand; its pid. */
async function cityWithSession(
  t: Test,
  city: string,
): Promise<{ s: TestSupervisor; dir: string; pid: number }> {
  const start = await agentSupervisor(t, city);
  let s = await start();
  const dir = await createMockCity(t, s, city);
  await s.close();
  appendFileSync(
    join(dir, 'city.toml'),
    '\n[daemon]\nshutdown_timeout = "1s"\n\n[[agent]]\nname = "scout"\nprovider = "mock"\n',
  );
  s = await start();
  const base = `/v0/city/${city}`;
  await eventually(async () => (await s.call('GET', `${base}/agents`)).status === 200, 20_000);
  const created = await s.call('POST', `${base}/sessions`, { kind: 'agent', name: 'scout', alias: 'mine' });
  t.equal(created.status, 202, JSON.stringify(created.body));
  await eventually(async () => (await s.call('GET', `${base}/session/mine`)).body.running === true, 30_000);
  const pids = panePids(s, city);
  t.equal(pids.length, 1, 'one session process on the city’s tmux server');
  return { s, dir, pid: pids[0]! };
}

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: city stop is not tested end to end here');
} else {
  t.test('POST /city/{name}/stop ends the city’s sessions and its tmux server', async (t) => {
    const { s, dir, pid } = await cityWithSession(t, 'halt');
    t.ok(alive(pid), 'the agent runs');
    const stopped = await s.call('POST', '/v0/city/halt/stop');
    t.equal(stopped.status, 200, JSON.stringify(stopped.body));
    await eventually(async () => !alive(pid), 10_000);
    t.pass('the agent process ended with the city');
    t.same(panePids(s, 'halt'), [], 'no tmux server left');
    const stops = readFileSync(join(dir, '.gc', 'events.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .filter((l) => (JSON.parse(l) as { type: string }).type === 'session.stopped');
    t.equal(stops.length, 1, 'session.stopped recorded in the city’s log');
    await s.close();
  });

  t.test('POST /city/{name}/unregister ends the sessions and leaves the directory', async (t) => {
    const { s, dir, pid } = await cityWithSession(t, 'gone');
    const res = await s.call('POST', '/v0/city/gone/unregister');
    t.equal(res.status, 202, JSON.stringify(res.body));
    t.equal(
      (await waitForTerminal(s.log, res.body.request_id, 30_000)).type,
      'request.result.city.unregister',
    );
    await eventually(async () => !alive(pid), 10_000);
    t.pass('the agent process ended with the city');
    t.same(panePids(s, 'gone'), [], 'no tmux server left');
    t.ok(existsSync(join(dir, 'city.toml')), 'the directory stays');
    await s.close();
  });
}
