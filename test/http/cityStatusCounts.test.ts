import t from 'tap';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { LiveCities } from '../../actors/supervisor/liveCities.ts';
import type { Bead } from '../../schemas/beads.ts';
import type { Message } from '../../schemas/mail.ts';
import { backendEnv, call, cityHarness, createBead, type CityHarness } from '../beads/helpers.ts';
import { memoryApp } from '../helpers/app.ts';

interface Counts {
  work: { in_progress: number; ready: number; open: number };
  mail: { unread: number; total: number };
  partial?: boolean;
  partial_errors?: string[];
}

const status = async (h: CityHarness): Promise<Counts> => {
  const res = await h.app.inject({ url: `${h.base}/status` });
  if (res.statusCode !== 200) throw new Error(`status: ${res.statusCode} ${res.body}`);
  return res.json<Counts>();
};

const send = async (h: CityHarness, to: string, subject: string) =>
  (await call(h, 'POST', '/mail', { to, subject })).json<Message>();

t.test('GET …/status counts work and mail from the read models', async (t) => {
  const env = await backendEnv(t, 'memory');
  const h = await cityHarness(t, env!);
  t.match(await status(h), { work: { in_progress: 0, ready: 0, open: 0 }, mail: { unread: 0, total: 0 } });

  const ready = await createBead(t, h, { title: 'ready work' });
  const blocked = await createBead(t, h, { title: 'blocked work' });
  const dep = await call(h, 'POST', `/bead/${blocked.id}/dependencies`, { depends_on_id: ready.id });
  t.equal(dep.statusCode, 200, dep.body);
  await createBead(t, h, { title: 'deferred work', defer_until: '2999-01-01T00:00:00Z' });
  const started = await createBead(t, h, { title: 'started work' });
  t.equal((await call(h, 'PATCH', `/bead/${started.id}`, { status: 'in_progress' })).statusCode, 200);
  const done = await createBead(t, h, { title: 'finished work' });
  t.equal((await call(h, 'POST', `/bead/${done.id}/close`)).statusCode, 200);
  // Bookkeeping beads are not work: a convoy, and the message beads of mail.
  t.equal((await call(h, 'POST', '/convoys', { title: 'a convoy' })).statusCode, 201);

  const unread = await send(h, 'bob', 'unread');
  const read = await send(h, 'bob', 'read');
  const archived = await send(h, 'carol', 'archived');
  t.equal((await call(h, 'POST', `/mail/${read.id}/read`)).statusCode, 200);
  t.equal((await call(h, 'POST', `/mail/${archived.id}/archive`)).statusCode, 200);

  const body = await status(h);
  t.same(body.work, { in_progress: 1, ready: 1, open: 3 }, 'open: ready + blocked + deferred');
  t.same(body.mail, { unread: 1, total: 2 }, 'archived mail is not counted');
  // This harness runs the bead store alone, so only the agent and rig counts may be partial.
  t.notOk(
    (body.partial_errors ?? []).some((e) => e.startsWith('work and mail')),
    'work and mail were counted whole',
  );
  t.same(body.mail, (await call(h, 'GET', '/mail/count')).json(), 'the same counts as GET /mail/count');
  t.equal((await call(h, 'GET', '/beads/ready')).json().total, body.work.ready, 'the same ready set');

  t.equal((await call(h, 'POST', `/mail/${unread.id}/read`)).statusCode, 200);
  t.equal((await call(h, 'POST', `/bead/${ready.id}/close`)).statusCode, 200);
  const after = await status(h);
  t.same(after.work, { in_progress: 1, ready: 1, open: 2 }, 'closing the blocker readies its dependent');
  t.same(after.mail, { unread: 0, total: 2 });
  t.equal((await call(h, 'GET', `/bead/${blocked.id}`)).json<Bead>().status, 'open');
});

t.test('a city running without its bead store reports zero counts as partial', async (t) => {
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const journal = new MemoryJournal('alpha');
  cities.set({ name: 'alpha', path: '/cities/alpha', journal, running: true, services: {} });
  const { app } = await memoryApp({ cities });
  t.teardown(() => app.close());
  const res = await app.inject({ url: '/v0/city/alpha/status' });
  t.equal(res.statusCode, 200);
  t.match(res.json(), {
    work: { in_progress: 0, ready: 0, open: 0 },
    mail: { unread: 0, total: 0 },
    partial: true,
    partial_errors: ['work and mail: bead store is not started for city alpha'],
  });
});

t.test('GET /v0/city/{cityName}/health answers for a running city, 404 otherwise', async (t) => {
  const env = await backendEnv(t, 'memory');
  const h = await cityHarness(t, env!);
  const res = await h.app.inject({ url: `${h.base}/health` });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.same(Object.keys(body).sort(), ['city', 'status', 'uptime_sec', 'version']);
  t.match(body, { status: 'ok', city: h.name, uptime_sec: Number, version: String });
  t.ok(body.uptime_sec >= 0);

  const missing = await h.app.inject({ url: '/v0/city/nobody/health' });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().detail, 'not_found: city not found or not running: nobody');

  const doc = (await h.app.inject({ url: '/openapi.json' })).json();
  const op = doc.paths['/v0/city/{cityName}/health']?.get;
  t.equal(op?.operationId, 'get-v0-city-by-city-name-health', 'documented under upstream operation id');
  const ref = op?.responses?.['200']?.content?.['application/json']?.schema?.$ref;
  t.equal(ref, '#/components/schemas/HealthOutputBody', "upstream's response shape, by upstream's name");
  const schema = doc.components?.schemas?.HealthOutputBody;
  t.same(Object.keys(schema?.properties ?? {}).sort(), ['city', 'status', 'uptime_sec', 'version']);
  t.same([...(schema?.required ?? [])].sort(), ['status', 'uptime_sec']);
});

t.test('status carries upstream’s per-agent, per-rig and session-count blocks', async (t) => {
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const agents = [
    { name: 'mayor', running: true, suspended: false, state: 'idle', session: { name: 'alpha-mayor' } },
    {
      name: 'web/worker-2',
      running: false,
      suspended: true,
      state: 'suspended',
      rig: 'web',
      pool: 'web/worker',
    },
  ];
  const rigs = [{ name: 'web', path: '/src/web', suspended: true, prefix: 'we' }];
  const total: Record<string, number> = { active: 3, suspended: 1 };
  const services = {
    config: {
      counts: () => ({ agents: 2, rigs: 1, suspendedRigs: 1 }),
      rigs: async () => ({ items: rigs, partialErrors: [] }),
    },
    agents: { list: async () => ({ items: agents, total: agents.length }) },
    sessions: { list: async (q: { state: string }) => ({ items: [], total: total[q.state] ?? 0 }) },
  };
  cities.set({
    name: 'alpha',
    path: '/cities/alpha',
    journal: new MemoryJournal('alpha'),
    running: true,
    services: services as never,
  });
  const { app } = await memoryApp({ cities });
  t.teardown(() => app.close());
  const res = await app.inject({ url: '/v0/city/alpha/status' });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.same(body.agent_details, [
    {
      name: 'mayor',
      qualified_name: 'mayor',
      scope: 'city',
      running: true,
      suspended: false,
      session_name: 'alpha-mayor',
    },
    {
      name: 'worker-2',
      qualified_name: 'web/worker-2',
      scope: 'rig',
      running: false,
      suspended: true,
      expanded: true,
      group_name: 'web/worker',
    },
  ]);
  t.same(body.rig_details, [{ name: 'web', path: '/src/web', suspended: true }]);
  t.same(body.session_counts_detail, { active: 3, suspended: 1 });
  t.equal(body.partial_errors?.length, 1, 'only the bead store is missing');
});
