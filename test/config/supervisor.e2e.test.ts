/**
 * The configuration surface in a real supervisor over real sockets: parallel PATCHes from separate HTTP
 * clients are serialised with none lost, each recorded on the city's event API (an internal event); a hand
 * edit of city.toml is picked up by the running city and evented there too.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { beadStoreService } from '../../actors/beads/index.ts';
import { linkedConfigService } from '../../actors/supervisor/linkedConfigService.ts';
import { eventually, fakeHost, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

t.test('parallel PATCHes and a hand edit, through a running supervisor', async (t) => {
  const first = await startTestSupervisor(t, { tickMs: 200 });
  await first.close();
  const s = await startTestSupervisor(t, {
    tickMs: 200,
    root: first.root,
    options: {
      services: [beadStoreService, linkedConfigService({ pollMs: 100 })],
      host: fakeHost(first.home, { bins: ['sh', 'node'] }),
    },
  });
  const dir = join(s.home, 'cfg');
  const created = await s.call('POST', '/v0/city', { dir, provider: 'mock' });
  t.equal((await waitForTerminal(s.log, created.body.request_id, 20_000)).type, 'request.result.city.create');
  const base = '/v0/city/cfg';
  await eventually(async () => (await s.call('GET', `${base}/rigs`)).status === 200, 20_000);

  const n = 16;
  const made = await Promise.all(
    Array.from({ length: n }, (_, i) => s.call('POST', `${base}/rigs`, { name: `r${i}`, path: `r${i}` })),
  );
  t.same(
    made.map((r) => r.status),
    Array(n).fill(201),
  );
  const patched = await Promise.all(
    Array.from({ length: n }, (_, i) => s.call('PATCH', `${base}/rig/r${i}`, { prefix: `p${i}` })),
  );
  t.same(
    patched.map((r) => r.status),
    Array(n).fill(200),
  );
  const rigs = (await s.call('GET', `${base}/rigs`)).body.items as Array<{ name: string; prefix?: string }>;
  t.same(
    rigs.map((r) => `${r.name}:${r.prefix}`).sort(),
    Array.from({ length: n }, (_, i) => `r${i}:p${i}`).sort(),
    'every write landed',
  );
  const events = async () =>
    (await s.call('GET', `${base}/events?type=config.changed&include=internal`)).body.items as Array<{
      subject: string;
      payload: { source: string; sha256: string };
    }>;
  t.equal((await events()).length, 2 * n, 'one event per write');
  t.equal(
    (await s.call('GET', `${base}/events?type=config.changed`)).body.items.length,
    0,
    'an internal event: listed only with include=internal',
  );

  appendFileSync(join(dir, 'city.toml'), '\n[[rigs]]\nname = "by-hand"\npath = "h"\n');
  await eventually(async () => (await events()).some((e) => e.payload.source === 'file'), 10_000);
  const edit = (await events()).find((e) => e.payload.source === 'file')!;
  t.match(edit, { subject: 'city.toml', payload: { source: 'file', valid: true } });
  t.ok(
    readFileSync(join(dir, 'city.toml'), 'utf8').includes('by-hand'),
    'the hand edit stays as written (no rewrite)',
  );
  t.equal((await s.call('GET', `${base}/rig/by-hand`)).status, 200, 'the running city serves it');
});
