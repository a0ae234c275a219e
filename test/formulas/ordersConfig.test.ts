import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { CONFIG_SERVICE } from '../../actors/config/configApi.ts';
import { ConfigService } from '../../actors/config/configService.ts';
import type { ExecRunner } from '../../actors/orders/orderCommands.ts';
import { orderProblems } from '../../actors/orders/orderScan.ts';
import { OrderService } from '../../actors/orders/orderService.ts';
import { ORDER_SERVICE } from '../../actors/orders/startOrderService.ts';
import type { ConfigProblem } from '../../machines/config/problems.ts';
import { recordingLogger } from '../helpers/recordingLogger.ts';
import { callJson, checksByName, firedOrders, formulaHarness, put } from './helpers.ts';

/**
 * city.toml's `[orders]` table and the order files upstream still reads (config-and-automation §3.1, §3.5):
 * `skip` and a file's `enabled = false` drop an order from the scanned list, `max_timeout` caps every
 * order's timeout, the legacy layouts are read with a deprecation warning, and `[[orders.overrides]]`
 * change an order's fields by name and rig. Everything is seen through the API: /orders, /orders/check,
 * firing, /config/validate.
 */

const T0 = Date.parse('2030-01-01T00:00:00Z');
const HOURLY = 'gate = "cron"\nschedule = "0 * * * *"\n';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
type Json = any;

const RIGS = `[workspace]
name = "c"

[[rigs]]
name = "app"
path = "repos/app"
formulas_dir = "rigs/app/formulas"
`;

interface ExecCall {
  command: string;
  timeoutMs: number;
}

/**
 * A served city: `toml` is its city.toml (a rig `app` unless told), `files` its order files; the config
 * service answers /config/validate. The scheduler ticks by hand on a simulated clock.
 */
async function city(t: Test, toml: string, files: Record<string, string>) {
  const h = await formulaHarness(t);
  await put(h, 'city.toml', toml);
  await h.formula('f.toml', '[[steps]]\nid = "a"\ntitle = "city step"\n');
  await put(h, 'rigs/app/formulas/f.toml', '[[steps]]\nid = "a"\ntitle = "app step"\n');
  await mkdir(join(h.dir, 'repos/app'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) await put(h, rel, text);
  const clock = { now: T0 + 5_000 };
  const calls: ExecCall[] = [];
  const exec: ExecRunner = (command, { timeoutMs }) => {
    calls.push({ command, timeoutMs });
    return Promise.resolve({ code: 0, stdout: '', stderr: '' });
  };
  const told: ConfigProblem[] = [];
  const svc = new OrderService(h.name, h.dir, h.beads.service, h.formulas, h.log, {
    clock: () => clock.now,
    tickMs: 0,
    exec,
    onProblem: (p) => told.push(p),
  });
  await svc.start();
  t.teardown(() => svc.stop());
  const config = new ConfigService({
    city: h.name,
    path: h.dir,
    log: h.log,
    logger: recordingLogger().logger,
    pollMs: 0,
    // Wired as the supervisor's composition root wires it (linkedConfigService).
    moreProblems: orderProblems,
  });
  await config.start();
  t.teardown(() => config.stop());
  h.attach({ [ORDER_SERVICE]: svc, [CONFIG_SERVICE]: config });
  const get = (path: string) => callJson(h, 'GET', path);
  const post = (path: string) => callJson(h, 'POST', path);
  const listed = async (): Promise<Record<string, Json>> => {
    const res = await get('/orders');
    t.equal(res.status, 200, JSON.stringify(res.body));
    return Object.fromEntries(
      (res.body.orders as Json[]).map((o): [string, Json] => [String(o.scoped_name), o]),
    );
  };
  const checked = async () => checksByName((await get('/orders/check')).body);
  const fired = () => firedOrders(h);
  const validate = async (): Promise<Json> => {
    const res = await get('/config/validate');
    t.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  return {
    h,
    svc,
    clock,
    calls,
    told,
    get,
    post,
    listed,
    checked,
    fired,
    validate,
  };
}

t.test(
  '[orders].skip drops the named orders, city and rig alike: not listed, not checked, never fired',
  async (t) => {
    const c = await city(t, `${RIGS}\n[orders]\nskip = ["sweep", "gone"]\n`, {
      'orders/nightly.toml': `[order]\nformula = "f"\n${HOURLY}`,
      'orders/sweep.toml': `[order]\nexec = "echo city"\n${HOURLY}`,
      'rigs/app/orders/sweep.toml': `[order]\nexec = "echo app"\n${HOURLY}`,
      'rigs/app/orders/lint.toml': `[order]\nexec = "echo lint"\n${HOURLY}`,
    });
    t.same(Object.keys(await c.listed()).sort(), ['lint:rig:app', 'nightly']);
    t.same(Object.keys(await c.checked()).sort(), ['lint:rig:app', 'nightly']);
    t.equal((await c.get('/order/sweep')).status, 404);
    t.equal((await c.get('/order/sweep:rig:app')).status, 404);
    t.equal((await c.post('/order/sweep/enable')).status, 404);
    t.equal(await c.svc.tick(), 2);
    t.same(await c.fired(), ['lint:rig:app', 'nightly']);
    t.same((await c.validate()).errors, [], 'a skip naming no order is no problem');
  },
);

t.test('an order file with enabled = false is dropped as upstream’s scan drops it', async (t) => {
  const c = await city(t, RIGS, {
    'orders/nightly.toml': `[order]\nformula = "f"\n${HOURLY}`,
    'orders/off.toml': `[order]\nformula = "f"\n${HOURLY}enabled = false\n`,
    'rigs/app/orders/off.toml': `[order]\nexec = "true"\n${HOURLY}enabled = false\n`,
  });
  t.same(Object.keys(await c.listed()), ['nightly']);
  t.same(Object.keys(await c.checked()), ['nightly']);
  t.equal((await c.get('/order/off')).status, 404);
  t.equal((await c.post('/order/off/enable')).status, 404, 'nothing to enable: it is not an order');
  t.equal(await c.svc.tick(), 1);
  t.same(await c.fired(), ['nightly']);
  t.same(c.calls, [], 'the rig’s disabled exec never ran');
});

t.test('[orders].max_timeout caps every order’s effective timeout; the list shows it', async (t) => {
  const c = await city(t, `${RIGS}\n[orders]\nmax_timeout = "1m"\n`, {
    'orders/formula.toml': `[order]\nformula = "f"\n${HOURLY}`,
    'orders/short.toml': `[order]\nformula = "f"\n${HOURLY}timeout = "10s"\n`,
    'orders/ping.toml': `[order]\nexec = "echo ping"\n${HOURLY}`,
    'orders/long.toml': `[order]\nexec = "echo long"\n${HOURLY}timeout = "2h"\n`,
  });
  const list = await c.listed();
  t.same(
    Object.fromEntries(Object.entries(list).map(([k, o]) => [k, o.timeout_ms])),
    { formula: 30_000, long: 60_000, ping: 60_000, short: 10_000 },
    'the default 30 s is under the cap; 300 s and 2h are capped to 1m',
  );
  t.equal(list.long.timeout, '2h', 'the timeout as written is still shown');
  await c.svc.tick();
  await c.svc.stop();
  t.same(
    c.calls.map((x) => [x.command, x.timeoutMs]).sort(),
    [
      ['echo long', 60_000],
      ['echo ping', 60_000],
    ],
    'exec orders run under the capped timeout',
  );
});

t.test('a max_timeout that is not a duration caps nothing and is a warning', async (t) => {
  const c = await city(t, `${RIGS}\n[orders]\nmax_timeout = "5mins"\n`, {
    'orders/ping.toml': `[order]\nexec = "echo ping"\n${HOURLY}`,
  });
  t.equal((await c.listed()).ping.timeout_ms, 300_000);
  const v = await c.validate();
  t.equal(v.valid, true);
  t.match(v.warnings, [/^city\.toml: orders\.max_timeout: .*"5mins".*not a valid duration/]);
});

t.test(
  'legacy layouts are read with a deprecation warning; the canonical file wins within a root',
  async (t) => {
    const c = await city(t, `[workspace]\nname = "c"\nincludes = ["packs/base"]\n`, {
      'packs/base/pack.toml': '[pack]\nname = "base"\nschema = 1\n',
      'packs/base/formulas/f.toml': '[[steps]]\nid = "a"\ntitle = "pack step"\n',
      // A pack's legacy file is replaced by the city's later layer of the same name.
      'packs/base/orders/shadowed/order.toml': `[order]\nexec = "echo pack"\n${HOURLY}`,
      'packs/base/orders/packonly.order.toml': `[order]\nexec = "echo packonly"\n${HOURLY}`,
      'orders/shadowed.order.toml': `[order]\nexec = "echo city"\n${HOURLY}`,
      'orders/flat.order.toml': `[order]\nformula = "f"\n${HOURLY}`,
      'orders/sub/order.toml': `[order]\nformula = "f"\n${HOURLY}`,
      'formulas/orders/inlayer/order.toml': `[order]\nformula = "f"\n${HOURLY}`,
      'orders/both.toml': `[order]\nexec = "echo canonical"\n${HOURLY}`,
      'orders/both.order.toml': `[order]\nexec = "echo legacy flat"\n${HOURLY}`,
      'orders/both/order.toml': `[order]\nexec = "echo legacy dir"\n${HOURLY}`,
      'formulas/orders/both/order.toml': `[order]\nexec = "echo legacy layer"\n${HOURLY}`,
    });
    const list = await c.listed();
    t.same(Object.fromEntries(Object.entries(list).map(([k, o]) => [k, o.exec ?? o.formula])), {
      both: 'echo canonical',
      flat: 'f',
      inlayer: 'f',
      packonly: 'echo packonly',
      shadowed: 'echo city',
      sub: 'f',
    });
    const deprecated = [
      'formulas/orders/inlayer/order.toml: order: deprecated order path; move to orders/inlayer.toml',
      'orders/flat.order.toml: order: deprecated order path; rename to orders/flat.toml',
      'orders/shadowed.order.toml: order: deprecated order path; rename to orders/shadowed.toml',
      'orders/sub/order.toml: order: deprecated order path; rename to orders/sub.toml',
      'packs/base/orders/packonly.order.toml: order: deprecated order path; rename to packs/base/orders/packonly.toml',
      'packs/base/orders/shadowed/order.toml: order: deprecated order path; rename to packs/base/orders/shadowed.toml',
    ];
    const v = await c.validate();
    t.equal(v.valid, true);
    t.same(
      (v.warnings as string[]).filter((w) => w.includes('deprecated')).sort(),
      deprecated,
      'each legacy file read is a warning; the ones the canonical file beats are not read',
    );
    t.same(
      c.told.map((p) => `${p.file}: ${p.field}: ${p.message}`).sort(),
      deprecated,
      'and told to the supervisor’s log once',
    );
    await c.svc.reload();
    t.equal(c.told.length, deprecated.length, 'not again at the next scan');
    t.equal(await c.svc.tick(), 6, 'legacy orders fire like any other');
    t.same(await c.fired(), ['both', 'flat', 'inlayer', 'packonly', 'shadowed', 'sub']);
  },
);

const OVERRIDES = `${RIGS}
[[orders.overrides]]
name = "nightly"
gate = "cooldown"
interval = "10m"
pool = "night-crew"
timeout = "45s"

[[orders.overrides]]
name = "sweep"
rig = "app"
schedule = "30 * * * *"

[[orders.overrides]]
name = "listen"
on = "bead.closed"
`;

t.test('[[orders.overrides]] change an order’s fields, keyed by name and rig', async (t) => {
  const c = await city(t, OVERRIDES, {
    'orders/nightly.toml': `[order]\nformula = "f"\n${HOURLY}pool = "worker"\n`,
    'orders/sweep.toml': `[order]\nexec = "echo city"\n${HOURLY}`,
    'rigs/app/orders/sweep.toml': `[order]\nexec = "echo app"\n${HOURLY}`,
    'orders/listen.toml': '[order]\nformula = "f"\ngate = "event"\non = "bead.created"\n',
  });
  const list = await c.listed();
  t.match(list.nightly, {
    gate: 'cooldown',
    trigger: 'cooldown',
    interval: '10m',
    pool: 'night-crew',
    timeout: '45s',
    timeout_ms: 45_000,
  });
  t.notOk('schedule' in list.nightly, 'no longer a cron order');
  t.match(list['sweep:rig:app'], { gate: 'cron', schedule: '30 * * * *' });
  t.match(list.sweep, { gate: 'cron', schedule: '0 * * * *' }, 'the city’s sweep is another order');
  t.match(list.listen, { gate: 'event', on: 'bead.closed' });
  const checks = await c.checked();
  t.same(checks.nightly, [true, 'never run']);
  t.same(checks['sweep:rig:app'], [false, 'cron: schedule not matched']);
  t.same(checks.sweep, [true, 'cron: schedule matched']);
  t.equal(await c.svc.tick(), 2);
  t.same(await c.fired(), ['nightly', 'sweep']);
  const routed = [...c.h.beads.service.model.beads.values()]
    .filter((b) => b.bead.labels?.includes('order-run:nightly'))
    .map((b) => b.bead.metadata?.['gc.routed_to'])
    .filter((x) => x !== undefined);
  t.same(routed, ['night-crew'], 'the wisp goes to the overriding pool');
  t.same((await c.validate()).errors, []);
});

t.test('an override’s enabled is applied; the journaled enable/disable wins over it', async (t) => {
  const c = await city(
    t,
    `${RIGS}\n[[orders.overrides]]\nname = "nightly"\nenabled = false\n\n[[orders.overrides]]\nname = "ping"\nenabled = true\n`,
    {
      'orders/nightly.toml': `[order]\nformula = "f"\n${HOURLY}`,
      'orders/ping.toml': `[order]\nexec = "echo ping"\n${HOURLY}`,
    },
  );
  t.equal((await c.listed()).nightly.enabled, false, 'listed, disabled by the override');
  t.same((await c.checked()).nightly, [false, 'disabled']);
  t.equal(await c.svc.tick(), 1);
  t.same(await c.fired(), ['ping']);
  t.same((await c.post('/order/nightly/enable')).body, { status: 'enabled' });
  t.same((await c.post('/order/ping/disable')).body, { status: 'disabled' });
  const list = await c.listed();
  t.same([list.nightly.enabled, list.ping.enabled], [true, false], 'the journaled switch wins');
  c.clock.now += 60 * 60_000;
  t.equal(await c.svc.tick(), 1);
  t.same(await c.fired(), ['nightly', 'ping']);
});

t.test('an override naming no order is a config problem, not a crash; the others still apply', async (t) => {
  const c = await city(
    t,
    `${RIGS}
[orders]
skip = ["skipped"]

[[orders.overrides]]
name = "nope"
enabled = false

[[orders.overrides]]
name = "nightly"
rig = "app"
pool = "x"

[[orders.overrides]]
name = "skipped"
pool = "x"

[[orders.overrides]]
name = "nightly"
schedule = "15 * * * *"

[[orders.overrides]]
pool = "x"
`,
    {
      'orders/nightly.toml': `[order]\nformula = "f"\n${HOURLY}`,
      'orders/skipped.toml': `[order]\nformula = "f"\n${HOURLY}`,
    },
  );
  const list = await c.listed();
  t.same(Object.keys(list), ['nightly']);
  t.equal(list.nightly.schedule, '15 * * * *', 'the good override applies');
  const v = await c.validate();
  t.equal(v.valid, false);
  t.same(v.errors, [
    'city.toml: orders.overrides[4].name: name is required',
    'city.toml: orders.overrides[0]: order "nope" not found',
    'city.toml: orders.overrides[1]: order "nightly" (rig "app") not found',
    'city.toml: orders.overrides[2]: order "skipped" not found',
  ]);
  t.same(
    c.told.map((p) => p.field),
    ['orders.overrides[4].name', 'orders.overrides[0]', 'orders.overrides[1]', 'orders.overrides[2]'],
    'told to the supervisor’s log',
  );
});

t.test('an override that makes an order invalid leaves it out, naming city.toml', async (t) => {
  const c = await city(t, `${RIGS}\n[[orders.overrides]]\nname = "nightly"\nschedule = "every hour"\n`, {
    'orders/nightly.toml': `[order]\nformula = "f"\n${HOURLY}`,
    'orders/ok.toml': `[order]\nformula = "f"\n${HOURLY}`,
  });
  t.same(Object.keys(await c.listed()), ['ok']);
  t.match(c.svc.broken, [
    {
      name: 'nightly',
      problems: [{ file: 'city.toml', field: 'orders.overrides[0].schedule' }],
    },
  ]);
  t.same((await c.validate()).errors, [], 'the override names an order');
});
