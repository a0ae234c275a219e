import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { OrderService } from '../../actors/orders/orderService.ts';
import { ORDER_SERVICE } from '../../actors/orders/startOrderService.ts';
import { formulaHarness, type FormulaHarness } from './helpers.ts';

/**
 * The orders family over a real socket: list, one order, check, enable/disable (journaled), history, a
 * run's output and the feed, on a city whose scheduler is ticked by hand on a simulated clock. Bad input
 * is a precise problem and writes nothing.
 */

const T0 = Date.parse('2030-01-01T00:00:00Z');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
type Json = any;

interface Served {
  h: FormulaHarness;
  svc: OrderService;
  clock: { now: number };
  get(path: string): Promise<{ status: number; body: Json; headers: Headers }>;
  post(path: string): Promise<{ status: number; body: Json }>;
  base: string;
}

async function served(t: Test): Promise<Served> {
  const h = await formulaHarness(t);
  await h.formula('f.toml', '[[steps]]\nid = "a"\n');
  await mkdir(join(h.dir, 'orders'));
  const order = (name: string, text: string) => writeFile(join(h.dir, 'orders', `${name}.toml`), text);
  await order(
    'nightly',
    '[order]\ndescription = "digest"\nformula = "f"\ngate = "cron"\nschedule = "0 * * * *"\npool = "worker"\n',
  );
  await order('ping', '[order]\nexec = "echo hi"\ntrigger = "cooldown"\ninterval = "5m"\n');
  await order('byhand', '[order]\nformula = "f"\ngate = "manual"\n');
  await order('broken', '[order]\nformula = "f"\ngate = "sometimes"\n');
  const clock = { now: T0 + 5_000 };
  const svc = new OrderService(h.name, h.dir, h.beads.service, h.formulas, h.log, {
    clock: () => clock.now,
    tickMs: 0,
    exec: (cmd) => Promise.resolve({ code: 0, stdout: `ran ${cmd}`, stderr: 'warn' }),
  });
  await svc.start();
  t.teardown(() => svc.stop());
  // Disabled through the API (a file's `enabled = false` drops the order, as upstream's scan does).
  await svc.setEnabled('byhand', false);
  h.attach({ [ORDER_SERVICE]: svc });
  const base = (await h.app.listen({ port: 0, host: '127.0.0.1' })) + h.base;
  const get = async (path: string) => {
    const res = await fetch(base + path);
    return { status: res.status, body: await res.json(), headers: res.headers };
  };
  const post = async (path: string) => {
    const res = await fetch(base + path, { method: 'POST', headers: { 'x-gc-request': '1' } });
    return { status: res.status, body: await res.json() };
  };
  return { h, svc, clock, get, post, base };
}

t.test('list and one order in upstream’s shape; broken files are left out', async (t) => {
  const { get } = await served(t);
  const list = await get('/orders');
  t.equal(list.status, 200);
  t.same(
    list.body.orders.map((o: { name: string }) => o.name),
    ['byhand', 'nightly', 'ping'],
  );
  const one = await get('/order/nightly');
  t.same(one.body, {
    name: 'nightly',
    scoped_name: 'nightly',
    type: 'formula',
    enabled: true,
    capture_output: false,
    timeout_ms: 30_000,
    trigger: 'cron',
    gate: 'cron',
    description: 'digest',
    formula: 'f',
    pool: 'worker',
    schedule: '0 * * * *',
  });
  t.match((await get('/order/ping')).body, {
    type: 'exec',
    capture_output: true,
    timeout_ms: 300_000,
    interval: '5m',
  });
  t.match((await get('/order/byhand')).body, { enabled: false, trigger: 'manual' });
});

t.test('check says what would fire now and why not; firing, history, output and feed follow', async (t) => {
  const { h, svc, clock, get } = await served(t);
  const reasons = async () =>
    Object.fromEntries(
      (await get('/orders/check')).body.checks.map((c: { name: string; due: boolean; reason: string }) => [
        c.name,
        [c.due, c.reason],
      ]),
    );
  t.same(await reasons(), {
    byhand: [false, 'disabled'],
    nightly: [true, 'cron: schedule matched'],
    ping: [true, 'never run'],
  });
  t.equal(await svc.tick(), 2);
  await svc.stop(); // waits for the exec's record
  clock.now += 60_000;
  t.same(await reasons(), {
    byhand: [false, 'disabled'],
    nightly: [false, 'cron: schedule not matched'],
    ping: [false, 'cooldown: 4m remaining'],
  });
  const checks = (await get('/orders/check?fresh=true')).body.checks;
  t.match(
    checks.find((c: { name: string }) => c.name === 'ping'),
    {
      last_run_outcome: 'success',
      last_run: /^2\d{3}-/,
    },
  );
  const history = await get('/orders/history?scoped_name=ping');
  t.equal(history.headers.get('x-gc-cache-age-s'), '0');
  const [run] = history.body.entries;
  t.match(run, {
    name: 'ping',
    scoped_name: 'ping',
    store_ref: `city:${h.name}`,
    capture_output: true,
    has_output: true,
    exit_code: '0',
    labels: ['order-run:ping', 'order-tracking', 'exec'],
  });
  const detail = await get(`/order/history/${run.bead_id}?store_ref=city:${h.name}`);
  t.same(detail.body, {
    bead_id: run.bead_id,
    store_ref: `city:${h.name}`,
    created_at: run.created_at,
    labels: run.labels,
    output: 'ran echo hi\nwarn',
  });
  const nightly = (await get('/orders/history?scoped_name=nightly&limit=5')).body.entries;
  t.same(
    nightly.map((e: { labels: string[] }) => e.labels),
    [['order-run:nightly', 'order-tracking', 'wisp'], ['order-run:nightly']],
    'the tracking bead and the wisp it dispatched',
  );
  t.equal(nightly[0].wisp_root_id, nightly[1].bead_id);
  t.same((await get('/orders/history?scoped_name=nightly&limit=1')).body.entries.length, 1);
  t.same(
    (await get('/orders/history?scoped_name=nightly&before=2000-01-01T00:00:00Z')).body.entries,
    [],
    'before filters by creation time',
  );
  const feed = await get('/orders/feed');
  t.equal(feed.status, 200);
  t.same(
    feed.body.items.map((i: { id: string; type: string; status: string }) => [i.type, i.status]).sort(),
    [
      ['exec', 'done'],
      ['formula', 'done'],
      ['formula', 'pending'],
    ],
    'the workflow run and one item per tracking bead',
  );
  t.ok(feed.body.items.some((i: { id: string }) => i.id === `order:${run.bead_id}`));
  t.equal((await get('/orders/feed?limit=1')).body.items.length, 1);
});

t.test('enable and disable are journaled, idempotent, and stop or resume firing', async (t) => {
  const { h, svc, clock, get, post } = await served(t);
  const before = (await h.events()).length;
  t.same(await post('/order/nightly/disable'), { status: 200, body: { status: 'disabled' } });
  t.same(await post('/order/nightly/disable'), { status: 200, body: { status: 'disabled' } });
  t.equal((await get('/order/nightly')).body.enabled, false);
  const events = (await h.events()).slice(before);
  t.match(events, [
    { type: 'order.disabled', subject: 'nightly', payload: { name: 'nightly', scoped_name: 'nightly' } },
  ]);
  t.equal(events.length, 1, 'a second disable writes nothing');
  t.equal(await svc.tick(), 1, 'only ping fires');
  t.same((await post('/order/byhand/enable')).body, { status: 'enabled' });
  t.same((await post('/order/nightly/enable')).body, { status: 'enabled' });
  clock.now += 60 * 60_000;
  t.equal(await svc.tick(), 2, 'nightly again (and ping after its cooldown); byhand is manual');
});

t.test('bad input: unknown orders and runs 404, malformed queries 422; nothing is written', async (t) => {
  const { h, svc, get, post, base } = await served(t);
  await svc.tick();
  await svc.stop();
  const plain = (await h.beads.service.create({ title: 'plain' })).bead.id;
  const head = (await h.events()).length;
  const problem = async (
    r: Promise<{ status: number; body: Json }>,
    status: number,
    detail: RegExp,
  ): Promise<Json> => {
    const res = await r;
    t.equal(res.status, status, JSON.stringify(res.body));
    t.match(res.body.detail, detail);
    return res.body;
  };
  await problem(get('/order/nope'), 404, /^not_found: order nope not found$/);
  await problem(post('/order/nope/enable'), 404, /^not_found: order nope not found$/);
  await problem(post('/order/nope/disable'), 404, /^not_found: order nope not found$/);
  await problem(get('/orders/history?scoped_name=nope'), 404, /^not_found: order nope not found$/);
  await problem(get('/order/history/gc-999'), 404, /^not_found: order run gc-999 not found$/);
  await problem(get(`/order/history/${plain}`), 404, /^not_found: order run .* not found$/);
  const runs = (await get('/orders/history?scoped_name=ping')).body.entries;
  await problem(get(`/order/history/${runs[0].bead_id}?store_ref=rig:x`), 404, /^not_found: store rig:x/);
  const missing = await problem(get('/orders/history'), 422, /^validation failed$/);
  t.match(missing.errors, [{ location: 'query.scoped_name' }]);
  const before = await problem(
    get('/orders/history?scoped_name=ping&before=yesterday'),
    422,
    /^validation failed$/,
  );
  t.same(before.errors, [
    { location: 'query.before', message: 'before must be an RFC 3339 timestamp', value: 'yesterday' },
  ]);
  await problem(get('/orders/check?fresh=maybe'), 422, /^validation failed$/);
  await problem(get('/orders/feed?scope_kind=city&scope_ref=elsewhere'), 404, /^not_found: scope/);
  const noHeader = await fetch(`${base}/order/nightly/disable`, { method: 'POST' });
  t.equal(noHeader.status, 403, 'a mutation needs X-GC-Request');
  t.equal((await get('/order/nightly')).body.enabled, true);
  t.equal((await h.events()).length, head, 'nothing written on any error');
});
