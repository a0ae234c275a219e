/**
 * Upstream's default pool demand end to end (real supervisor, real tmux, the mock agent): a template with
 * no `scale_check` runs one session per piece of work routed to it (`gc.routed_to`) that nobody holds, within
 * its bounds, and its idle surplus goes once the work is done. A sling wakes the agent it routes to. A session
 * started by hand for the pool's template (session_origin manual) is neither a pool member nor surplus.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { hasTmux } from '../sessions/e2eKit.ts';
import { eventually } from '../helpers/supervisor.ts';
import { agentSupervisor, createMockCity } from './agentsKit.ts';

const CITY = 'docks';
const base = `/v0/city/${CITY}`;

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: routed demand is not tested end to end here');
} else {
  t.test(
    'work routed to a pool wakes one session per piece, and the surplus goes when it is done',
    async (t) => {
      const start = await agentSupervisor(t, CITY);
      let s = await start();
      const dir = await createMockCity(t, s, CITY);
      await s.close();
      appendFileSync(
        join(dir, 'city.toml'),
        [
          '',
          '[[agent]]',
          'name = "polecat"',
          'provider = "mock"',
          'max_active_sessions = 2',
          '',
          '[[agent]]',
          'name = "scout"',
          'provider = "mock"',
          '',
        ].join('\n'),
      );
      s = await start();
      await eventually(async () => (await s.call('GET', `${base}/agents`)).status === 200, 20_000);
      type View = { name: string; running: boolean };
      const running = async () =>
        (((await s.call('GET', `${base}/agents`)).body.items ?? []) as View[])
          .filter((a) => a.running)
          .map((a) => a.name)
          .sort();
      t.same(await running(), [], 'no work, no sessions (both minimums are 0)');

      // A session started by hand for the pool's template: the user's, not the pool's.
      const manual = await s.call('POST', `${base}/sessions`, {
        kind: 'agent',
        name: 'polecat',
        alias: 'mine',
      });
      t.equal(manual.status, 202, JSON.stringify(manual.body));
      const mine = async () => (await s.call('GET', `${base}/session/mine`)).body as { state?: string };
      await eventually(async () => (await mine()).state === 'active', 30_000);
      const pool = async () => (await running()).filter((n) => n.startsWith('polecat'));

      // Three pieces of work routed to the pool: two sessions (its maximum).
      const ids: string[] = [];
      for (const title of ['a', 'b', 'c']) {
        const r = await s.call('POST', `${base}/beads`, { title, metadata: { 'gc.routed_to': 'polecat' } });
        t.equal(r.status, 201, JSON.stringify(r.body));
        ids.push(r.body.id as string);
      }
      await eventually(async () => JSON.stringify(await pool()) === '["polecat-1","polecat-2"]', 30_000);
      t.pass('the pool runs one session per routed piece of work, up to its maximum, the manual one aside');

      // A sling routes a bead to the singleton: it wakes.
      const bead = await s.call('POST', `${base}/beads`, { title: 'look around' });
      const slung = await s.call('POST', `${base}/sling`, { target: 'scout', bead: bead.body.id });
      t.ok(slung.status < 300, `sling: ${slung.status} ${JSON.stringify(slung.body)}`);
      await eventually(async () => (await running()).includes('scout'), 30_000);
      t.pass('a sling wakes the agent it routes to');

      // The work is done: the pool's idle sessions go.
      for (const id of ids) t.equal((await s.call('POST', `${base}/bead/${id}/close`)).status, 200);
      await eventually(async () => (await pool()).length === 0, 30_000);
      t.pass('with no routed work left, the idle pool sessions are closed');
      t.equal((await mine()).state, 'active', 'the manual session outlives every shrink of the pool');
      await s.close();
    },
  );
}
