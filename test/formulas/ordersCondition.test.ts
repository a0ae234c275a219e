import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { ExecRunner } from '../../actors/orders/orderCommands.ts';
import { OrderService } from '../../actors/orders/orderService.ts';
import { ORDER_SERVICE } from '../../actors/orders/startOrderService.ts';
import { parseOrder } from '../../machines/orders/order.ts';
import { callJson, checksByName, firedOrders, formulaHarness, put } from './helpers.ts';

/**
 * Condition orders (config-and-automation §3.2–§3.4): `gate = "condition"` with `check`, due when
 * `sh -c <check>` exits 0 within the check timeout (10 s upstream; 1.5 s here: long enough for a shell to start on a loaded machine). `/orders/check` runs each
 * check on every call and says why; the scheduler runs them beside its tick and fires a passing one, again
 * only once the previous run's tracking bead is closed. Checks are real `sh` commands in real temp dirs.
 */

const T0 = Date.parse('2030-01-01T00:00:00Z');
const CHECK_TIMEOUT_MS = 1_500;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
type Json = any;

const RIGS = `[workspace]
name = "c"

[[rigs]]
name = "app"
path = "repos/app"
formulas_dir = "rigs/app/formulas"
`;

const cond = (check: string) => `gate = "condition"\ncheck = ${JSON.stringify(check)}\n`;

/** Polls `ready` until it holds or the deadline passes (no sleeps as synchronisation). */
async function until(ready: () => Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A served city with order files `files`; ticks by hand on a simulated clock; exec orders run through a
 * runner the test releases (`release()`), checks for real under the 1.5 s timeout.
 */
async function city(t: Test, files: Record<string, string>, toml = RIGS) {
  const h = await formulaHarness(t);
  await put(h, 'city.toml', toml);
  await h.formula('f.toml', '[[steps]]\nid = "a"\ntitle = "city step"\n');
  await mkdir(join(h.dir, 'repos/app'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) await put(h, rel, text);
  const clock = { now: T0 + 5_000 };
  const execs: string[] = [];
  const pending: (() => void)[] = [];
  const exec: ExecRunner = (command) => {
    execs.push(command);
    return new Promise((resolve) => pending.push(() => resolve({ code: 0, stdout: '', stderr: '' })));
  };
  const svc = new OrderService(h.name, h.dir, h.beads.service, h.formulas, h.log, {
    clock: () => clock.now,
    tickMs: 0,
    exec,
    checkTimeoutMs: CHECK_TIMEOUT_MS,
  });
  await svc.start();
  t.teardown(async () => {
    for (const r of pending.splice(0)) r();
    await svc.stop();
  });
  h.attach({ [ORDER_SERVICE]: svc });
  const get = (path: string) => callJson(h, 'GET', path);
  const checked = async (): Promise<Record<string, [boolean, string]>> => {
    const res = await get('/orders/check');
    t.equal(res.status, 200, JSON.stringify(res.body));
    return checksByName(res.body);
  };
  const fired = () => firedOrders(h);
  const history = async (name: string): Promise<Json[]> => {
    const res = await get(`/orders/history?scoped_name=${encodeURIComponent(name)}`);
    t.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.entries as Json[];
  };
  /** One tick, then the checks it started and what they fired. */
  const tick = async (): Promise<void> => {
    await svc.tick();
    await svc.idle();
  };
  const release = () => {
    for (const r of pending.splice(0)) r();
  };
  return { h, svc, clock, execs, get, checked, fired, history, tick, release };
}

t.test('/orders/check runs each check now: passed, failed with its exit status, timed out', async (t) => {
  const c = await city(t, {
    'orders/ok.toml': `[order]\nformula = "f"\n${cond('true')}`,
    'orders/bad.toml': `[order]\nformula = "f"\n${cond('exit 3')}`,
    'orders/slow.toml': `[order]\nformula = "f"\n${cond('sleep 5')}`,
  });
  const list = Object.fromEntries(
    ((await c.get('/orders')).body.orders as Json[]).map((o): [string, Json] => [String(o.scoped_name), o]),
  );
  t.match(list.ok, { gate: 'condition', trigger: 'condition', check: 'true' });
  const started = Date.now();
  const checks = await c.checked();
  t.same(checks.ok, [true, 'condition: check passed (exit 0)']);
  t.same(checks.bad, [false, 'check command failed: exit status 3']);
  t.same(checks.slow, [false, 'check command timed out after 1.5s']);
  t.ok(Date.now() - started < 4_000, 'the slow check was killed at its timeout, not waited for');
  t.same(await c.fired(), [], 'checking fires nothing');
});

t.test(
  'each /orders/check call runs the check again, in the order’s directory and environment',
  async (t) => {
    const c = await city(t, {
      'orders/count.toml': `[order]\nexec = "true"\n${cond('[ "$GC_STORE_SCOPE" = city ] && echo x >> count.txt')}`,
      'rigs/app/orders/count.toml': `[order]\nexec = "true"\n${cond('[ "$GC_RIG" = app ] && [ "$(pwd)" = "$GC_RIG_ROOT" ] && echo x >> rig.txt')}`,
    });
    const first = await c.checked();
    t.same(first.count, [true, 'condition: check passed (exit 0)']);
    t.same(first['count:rig:app'], [true, 'condition: check passed (exit 0)']);
    await c.checked();
    t.equal(await readFile(join(c.h.dir, 'count.txt'), 'utf8'), 'x\nx\n', 'two calls, two runs, in the city');
    t.equal(await readFile(join(c.h.dir, 'repos/app/rig.txt'), 'utf8'), 'x\nx\n', 'the rig’s ran in the rig');
  },
);

t.test('the scheduler fires a condition order whose check passes, never one whose check fails', async (t) => {
  const c = await city(t, {
    'orders/pass.toml': `[order]\nformula = "f"\n${cond('true')}`,
    'orders/fail.toml': `[order]\nformula = "f"\n${cond('exit 3')}`,
  });
  await c.tick();
  t.same(await c.fired(), ['pass']);
  const [run] = await c.history('pass');
  t.match(run, { labels: ['order-run:pass', 'order-tracking', 'wisp'] });
  t.same(await c.history('fail'), [], 'no run of the failing order');
  await c.tick();
  t.same(await c.fired(), ['pass', 'pass'], 'its tracking bead closed, it fires again on the next tick');
  const checks = await c.checked();
  t.same(checks.fail, [false, 'check command failed: exit status 3']);
});

t.test('a check that outlasts its timeout neither holds the tick nor fires', async (t) => {
  const c = await city(t, {
    'orders/slow.toml': `[order]\nformula = "f"\n${cond('echo x >> ran.txt; sleep 5')}`,
  });
  t.equal(await c.svc.tick(), 0, 'the tick wrote nothing and did not wait for the check');
  const state = await Promise.race([
    c.svc.idle().then(() => 'idle'),
    new Promise((r) => setImmediate(() => r('checking'))),
  ]);
  t.equal(state, 'checking', 'the check still runs after the tick');
  await c.svc.tick();
  await c.svc.idle();
  t.same(await c.fired(), []);
  t.equal(await readFile(join(c.h.dir, 'ran.txt'), 'utf8'), 'x\n', 'one check at a time per order');
});

t.test('an exec condition order fires again only once its run’s tracking bead is closed', async (t) => {
  const c = await city(t, { 'orders/ping.toml': `[order]\nexec = "echo ping"\n${cond('true')}` });
  await c.tick();
  t.same(await c.fired(), ['ping']);
  t.same(c.execs, ['echo ping']);
  const [run] = await c.history('ping');
  t.match(run, { labels: ['order-run:ping', 'order-tracking', 'exec'] });
  const status = () => c.h.beads.service.model.beads.get(String(run.bead_id))?.bead.status;
  t.equal(status(), 'open');
  await c.tick();
  t.same(await c.fired(), ['ping'], 'the run is still open: not fired');
  t.same((await c.checked()).ping, [false, 'previous run still open']);
  c.release();
  await until(() => Promise.resolve(status() === 'closed'), 'the run to close');
  await c.tick();
  t.same(await c.fired(), ['ping', 'ping']);
  t.equal(c.execs.length, 2);
});

t.test('[[orders.overrides]] set check, or turn an order into a condition order', async (t) => {
  const c = await city(
    t,
    {
      'orders/gated.toml': `[order]\nformula = "f"\n${cond('exit 3')}`,
      'orders/nightly.toml': '[order]\nformula = "f"\ngate = "cron"\nschedule = "0 3 * * *"\n',
    },
    `${RIGS}
[[orders.overrides]]
name = "gated"
check = "true"

[[orders.overrides]]
name = "nightly"
gate = "condition"
check = "exit 4"
`,
  );
  const list = Object.fromEntries(
    ((await c.get('/orders')).body.orders as Json[]).map((o): [string, Json] => [String(o.scoped_name), o]),
  );
  t.match(list.gated, { gate: 'condition', check: 'true' });
  t.match(list.nightly, { gate: 'condition', check: 'exit 4' });
  t.notOk('schedule' in list.nightly);
  const checks = await c.checked();
  t.same(checks.gated, [true, 'condition: check passed (exit 0)']);
  t.same(checks.nightly, [false, 'check command failed: exit status 4']);
  await c.tick();
  t.same(await c.fired(), ['gated']);
});

t.test('a condition trigger needs check', async (t) => {
  const bad = parseOrder('x', 'orders/x.toml', '[order]\nformula = "f"\ngate = "condition"\n');
  t.match(bad, { ok: false, problems: [{ field: 'order.check', message: /needs check/ }] });
  const good = parseOrder('x', 'orders/x.toml', `[order]\nexec = "true"\n${cond('test -f ready')}`);
  t.match(good, { ok: true, order: { trigger: { kind: 'condition', check: 'test -f ready' } } });
});
