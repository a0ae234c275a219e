import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { ExecRunner } from '../../actors/orders/orderCommands.ts';
import { OrderService } from '../../actors/orders/orderService.ts';
import { ORDER_SERVICE } from '../../actors/orders/startOrderService.ts';
import { callJson, firedOrders, formulaHarness, put } from './helpers.ts';

/**
 * Rig orders (upstream `scanAllOrders`): the `orders/` beside each of a rig's own formula layers (its
 * packs', its `formulas_dir`) are the rig's orders: `rig = <rig>`, scoped `<name>:rig:<rig>`, a bare pool
 * qualified `<rig>/<pool>`, history and tracking under the scoped name, not fired while the rig is
 * suspended, exec'd in the rig with upstream's variables. A bare name several rigs share is a 409.
 */

const T0 = Date.parse('2030-01-01T00:00:00Z');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
type Json = any;

const cityToml = (webSuspended = false) => `[workspace]
name = "c"

[[rigs]]
name = "app"
path = "repos/app"
formulas_dir = "rigs/app/formulas"
includes = ["packs/rp"]

[[rigs]]
name = "web"
path = "repos/web"
formulas_dir = "rigs/web/formulas"
suspended = ${webSuspended}
`;

const HOURLY = 'gate = "cron"\nschedule = "0 * * * *"\n';

interface ExecCall {
  command: string;
  cwd: string;
  env: Record<string, string>;
}

/** A city with a city order, two rigs' orders (one name in both) and a rig pack's order, served. */
async function rigCity(t: Test, options: { realShell?: boolean } = {}) {
  const h = await formulaHarness(t);
  await put(h, 'city.toml', cityToml());
  await put(h, 'packs/rp/pack.toml', '[pack]\nname = "rp"\nschema = 1\n');
  await put(h, 'packs/rp/formulas/lintf.toml', '[[steps]]\nid = "a"\n');
  await put(h, 'packs/rp/orders/lint.toml', `[order]\nexec = "echo lint"\n${HOURLY}`);
  await h.formula('f.toml', '[[steps]]\nid = "a"\ntitle = "city step"\n');
  await put(h, 'orders/nightly.toml', `[order]\nformula = "f"\n${HOURLY}pool = "worker"\n`);
  await put(h, 'orders/webwork.toml', `[order]\nformula = "f"\n${HOURLY}pool = "web/worker"\n`);
  await put(h, 'rigs/app/formulas/f.toml', '[[steps]]\nid = "a"\ntitle = "app step"\n');
  await put(h, 'rigs/app/orders/nightly.toml', `[order]\nformula = "f"\n${HOURLY}pool = "worker"\n`);
  await put(h, 'rigs/app/orders/sweep.toml', `[order]\nexec = "echo app"\n${HOURLY}`);
  await put(h, 'rigs/web/orders/sweep.toml', `[order]\nexec = "echo web"\n${HOURLY}`);
  await mkdir(join(h.dir, 'repos/app'), { recursive: true });
  await mkdir(join(h.dir, 'repos/web'), { recursive: true });
  const clock = { now: T0 + 5_000 };
  const calls: ExecCall[] = [];
  const exec: ExecRunner = (command, { cwd, env }) => {
    calls.push({ command, cwd, env });
    return Promise.resolve({ code: 0, stdout: '', stderr: '' });
  };
  const svc = new OrderService(h.name, h.dir, h.beads.service, h.formulas, h.log, {
    clock: () => clock.now,
    tickMs: 0,
    ...(options.realShell ? {} : { exec }),
  });
  await svc.start();
  t.teardown(() => svc.stop());
  h.attach({ [ORDER_SERVICE]: svc });
  const get = (path: string) => callJson(h, 'GET', path);
  const post = (path: string) => callJson(h, 'POST', path);
  return { h, svc, clock, calls, get, post };
}

t.test('rig orders are listed with their rig and scoped name; the pool is shown as written', async (t) => {
  const { get } = await rigCity(t);
  const list = await get('/orders');
  t.equal(list.status, 200, JSON.stringify(list.body));
  t.same(
    (list.body.orders as Json[]).map((o): unknown[] => [o.scoped_name, o.name, o.rig ?? null]),
    [
      ['lint:rig:app', 'lint', 'app'],
      ['nightly', 'nightly', null],
      ['nightly:rig:app', 'nightly', 'app'],
      ['sweep:rig:app', 'sweep', 'app'],
      ['sweep:rig:web', 'sweep', 'web'],
      ['webwork', 'webwork', null],
    ],
  );
  const one = await get('/order/nightly:rig:app');
  t.equal(one.status, 200);
  t.match(one.body, {
    name: 'nightly',
    scoped_name: 'nightly:rig:app',
    rig: 'app',
    pool: 'worker',
    formula: 'f',
  });
  const city = await get('/order/nightly');
  t.equal(city.body.scoped_name, 'nightly', 'the scoped name first: the city’s order');
  t.notOk('rig' in city.body);
  t.equal((await get('/order/lint')).body.scoped_name, 'lint:rig:app', 'a bare name one rig has');
  t.match((await get('/orders/check')).body.checks, [
    { name: 'lint', scoped_name: 'lint:rig:app', rig: 'app', due: true },
    { name: 'nightly', scoped_name: 'nightly', due: true },
    { name: 'nightly', scoped_name: 'nightly:rig:app', rig: 'app', due: true },
    { scoped_name: 'sweep:rig:app', rig: 'app' },
    { scoped_name: 'sweep:rig:web', rig: 'web' },
    { scoped_name: 'webwork' },
  ]);
});

t.test('a rig order fires under its scoped name: its layer’s formula, its rig’s pool', async (t) => {
  const { h, svc, get } = await rigCity(t);
  t.equal(await svc.tick(), 6);
  t.same(await firedOrders(h), [
    'lint:rig:app',
    'nightly',
    'nightly:rig:app',
    'sweep:rig:app',
    'sweep:rig:web',
    'webwork',
  ]);
  const history = await get('/orders/history?scoped_name=nightly:rig:app');
  t.equal(history.status, 200, JSON.stringify(history.body));
  const entries = history.body.entries as Json[];
  const root = entries.find((e) => e.labels.includes('order-run:nightly:rig:app') && e.wisp_root_id);
  t.ok(root, 'the tracking bead names the wisp');
  for (const e of entries)
    t.match(e, { name: 'nightly', scoped_name: 'nightly:rig:app', rig: 'app', store_ref: 'rig:app' });
  const wisp = h.beads.service.model.beads.get(root.wisp_root_id)!.bead;
  t.match(
    wisp.metadata,
    { 'gc.scope_kind': 'rig', 'gc.scope_ref': 'app' },
    'the wisp runs in the rig’s scope',
  );
  t.equal(wisp.metadata?.['gc.routed_to'], 'app/worker', 'the bare pool is the rig’s');
  t.ok(wisp.labels?.includes('order-run:nightly:rig:app'));
  const steps = [...h.beads.service.model.beads.values()].map((b) => b.bead.title);
  t.ok(steps.includes('app step') && steps.includes('city step'), 'each from its own layer');
  const city = (await get('/orders/history?scoped_name=nightly')).body.entries as Json[];
  t.ok(city.length > 0);
  for (const e of city) {
    t.equal(e.scoped_name, 'nightly');
    t.notOk('rig' in e);
  }
  const check = (await get('/orders/check')).body.checks.find(
    (c: Json) => c.scoped_name === 'nightly:rig:app',
  );
  t.match(check, { due: false, last_run_outcome: 'success' });
  const feed = (await get('/orders/feed')).body.items as Json[];
  t.ok(
    feed.some((i) => i.title === 'order:nightly:rig:app' && i.target === 'app/worker'),
    'the feed targets the qualified pool',
  );
  // Scoped, the feed holds the runs of that scope alone: the rig's orders' and their wisps.
  const appFeed = (await get('/orders/feed?scope_kind=rig&scope_ref=app')).body.items as Json[];
  t.ok(appFeed.length > 0);
  for (const i of appFeed) t.match(i, { scope_kind: 'rig', scope_ref: 'app' });
  t.ok(appFeed.some((i) => i.title === 'order:nightly:rig:app'));
  t.ok(appFeed.some((i) => i.workflow_id === root.wisp_root_id && i.type === 'formula'));
  const cityFeed = (await get(`/orders/feed?scope_kind=city&scope_ref=${h.name}`)).body.items as Json[];
  t.ok(cityFeed.some((i) => i.title === 'order:nightly'));
  t.notOk(cityFeed.some((i) => i.title === 'order:nightly:rig:app' || i.scope_kind !== 'city'));
});

t.test('an order whose rig is suspended is not fired; it is once the rig resumes', async (t) => {
  const { h, svc } = await rigCity(t);
  await put(h, 'city.toml', cityToml(true));
  await svc.reload();
  t.equal(await svc.tick(), 4);
  t.same(
    await firedOrders(h),
    ['lint:rig:app', 'nightly', 'nightly:rig:app', 'sweep:rig:app'],
    'web’s own order and a city order with a web pool wait',
  );
  await put(h, 'city.toml', cityToml(false));
  await svc.reload();
  t.equal(await svc.tick(), 2, 'the current slot fires once the rig is resumed');
  t.same(
    (await firedOrders(h)).filter((s) => s.includes('web')),
    ['sweep:rig:web', 'webwork'],
  );
});

t.test('a bare name several rigs share is a 409 naming the scoped names; nothing is written', async (t) => {
  const { h, get, post } = await rigCity(t);
  const before = (await h.events()).length;
  for (const res of [
    await get('/order/sweep'),
    await post('/order/sweep/disable'),
    await post('/order/sweep/enable'),
    await get('/orders/history?scoped_name=sweep'),
  ]) {
    t.equal(res.status, 409, JSON.stringify(res.body));
    t.match(res.body.detail, /^ambiguous order name "sweep"; use scoped name: sweep:rig:app, sweep:rig:web$/);
  }
  t.equal((await h.events()).length, before, 'nothing written');
  t.equal((await get('/order/nope')).status, 404);
});

t.test('enable/disable a scoped name: the switch carries its name and rig', async (t) => {
  const { h, svc, get, post } = await rigCity(t);
  const res = await post('/order/sweep:rig:web/disable');
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.match(res.body, { status: 'disabled' });
  const toggles = (await h.events()).filter((e) => e.type === 'order.disabled');
  t.match(toggles, [{ subject: 'sweep:rig:web' }]);
  t.same(toggles[0]!.payload, { name: 'sweep', scoped_name: 'sweep:rig:web', rig: 'web' });
  const enabled = async (): Promise<Record<string, boolean>> =>
    Object.fromEntries(
      ((await get('/orders')).body.orders as Json[])
        .filter((o) => o.name === 'sweep')
        .map((o): [string, boolean] => [String(o.scoped_name), o.enabled === true]),
    );
  t.same(await enabled(), { 'sweep:rig:app': true, 'sweep:rig:web': false }, 'the other rig’s is untouched');
  t.equal(await svc.tick(), 5, 'the disabled one does not fire');
  await h.restart();
  const again = new OrderService(h.name, h.dir, h.beads.service, h.formulas, h.log, { tickMs: 0 });
  await again.start();
  t.teardown(() => again.stop());
  h.attach({ [ORDER_SERVICE]: again });
  t.same(await enabled(), { 'sweep:rig:app': true, 'sweep:rig:web': false }, 'folded from the log');
  t.equal((await post('/order/sweep:rig:web/enable')).status, 200);
  t.same(await enabled(), { 'sweep:rig:app': true, 'sweep:rig:web': true });
});

t.test('exec orders run in their rig with upstream’s variables', async (t) => {
  const { h, svc, calls } = await rigCity(t);
  await put(h, 'orders/ping.toml', `[order]\nexec = "echo city"\n${HOURLY}`);
  await svc.reload();
  await svc.tick();
  await svc.stop();
  const by = Object.fromEntries(calls.map((c) => [c.command, c]));
  const d = h.dir;
  t.match(by['echo web'], {
    cwd: join(d, 'repos/web'),
    env: {
      GC_RIG: 'web',
      GC_RIG_ROOT: join(d, 'repos/web'),
      GC_STORE_ROOT: join(d, 'repos/web'),
      GC_STORE_SCOPE: 'rig',
      ORDER_DIR: join(d, 'rigs/web/orders'),
      GC_CITY_PATH: d,
    },
  });
  t.match(by['echo lint'], {
    cwd: join(d, 'repos/app'),
    env: {
      GC_RIG: 'app',
      GC_RIG_ROOT: join(d, 'repos/app'),
      ORDER_DIR: join(d, 'packs/rp/orders'),
      PACK_DIR: join(d, 'packs/rp'),
      GC_PACK_DIR: join(d, 'packs/rp'),
      GC_PACK_NAME: 'rp',
      GC_PACK_STATE_DIR: join(d, '.gc/runtime/packs/rp'),
    },
  });
  t.match(by['echo city'], {
    cwd: d,
    env: { GC_RIG: '', GC_RIG_ROOT: '', GC_STORE_SCOPE: 'city', ORDER_DIR: join(d, 'orders') },
  });
});

t.test('the real shell gets the variables and runs in the rig', async (t) => {
  const { h, svc, get } = await rigCity(t, { realShell: true });
  await put(h, 'rigs/app/orders/sweep.toml', `[order]\nexec = 'echo "$GC_RIG|$ORDER_DIR|$(pwd)"'\n${HOURLY}`);
  await svc.reload();
  await svc.tick();
  await svc.stop();
  const [run] = (await get('/orders/history?scoped_name=sweep:rig:app')).body.entries as Json[];
  t.match(run, { exit_code: '0', rig: 'app' });
  const detail = await get(`/order/history/${run.bead_id}`);
  t.equal(
    detail.body.output.split('\n')[0],
    `app|${join(h.dir, 'rigs/app/orders')}|${join(h.dir, 'repos/app')}`,
  );
});
