import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { OrderService } from '../../actors/orders/orderService.ts';
import { parseCron } from '../../machines/orders/cron.ts';
import { parseOrder, type Order } from '../../machines/orders/order.ts';
import { evaluate } from '../../machines/orders/schedule.ts';
import { formulaHarness, type FormulaHarness } from './helpers.ts';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const MIN = 60_000;

const order = (toml: string, name = 'o'): Order => {
  const r = parseOrder(name, `orders/${name}.toml`, `[order]\n${toml}`);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.order;
};
const hourly = (catchUp = 'latest') =>
  order(`formula = "f"\ngate = "cron"\nschedule = "0 * * * *"\ncatch_up = "${catchUp}"\n`);

t.test('cron fields: *, numbers, lists, ranges, steps; bad ones named', async (t) => {
  t.type(parseCron('*/15 9-17 * * 1,3,5'), 'object');
  t.equal(parseCron('0 24 * * *'), 'cron hour: "24" is outside 0-23');
  t.equal(parseCron('* * *'), 'cron schedule needs 5 fields, got 3');
});

t.test('order files: one of formula/exec, the trigger’s own field, problems with line', async (t) => {
  const r = parseOrder('x', 'orders/x.toml', '[order]\nformula = "f"\nexec = "true"\ngate = "cooldown"\n');
  t.match(r, { ok: false, problems: [{ field: 'order.exec', line: 3 }, { field: 'order.interval' }] });
});

t.test('catch-up policies on a simulated clock', async (t) => {
  const down = { lastSlot: T0 }; // fired at 00:00, then down until 03:30
  const now = T0 + 3 * 60 * MIN + 30 * MIN;
  t.match(evaluate(hourly('latest'), down, now), {
    due: true,
    fire: [T0 + 3 * 60 * MIN],
    skipped: { count: 2, from: T0 + 60 * MIN, to: T0 + 2 * 60 * MIN },
  });
  t.match(evaluate(hourly('all'), down, now), { fire: [T0 + 60 * MIN, T0 + 120 * MIN, T0 + 180 * MIN] });
  t.notOk(evaluate(hourly('all'), down, now).skipped);
  t.match(evaluate(hourly('none'), down, now), { due: false, fire: [], skipped: { count: 3 } });
  t.match(evaluate(hourly(), {}, T0 + 5 * MIN), { due: false, reason: 'cron: schedule not matched' });
  t.match(
    evaluate(hourly(), {}, T0 + 5 * 1000),
    { due: true, fire: [T0] },
    'never run: the current minute only',
  );
  t.match(evaluate(hourly(), { lastSlot: T0 }, T0 + 30 * 1000), {
    due: false,
    reason: 'cron: already run this minute',
  });
  const cool = order('formula = "f"\ngate = "cooldown"\ninterval = "5m"\n');
  t.match(evaluate(cool, { lastRun: T0 }, T0 + 4 * MIN), { due: false, reason: 'cooldown: 1m remaining' });
  t.match(evaluate(cool, { lastRun: T0 }, T0 + 5 * MIN), { due: true, reason: 'elapsed 5m >= interval 5m' });
});

async function ordersOn(h: FormulaHarness, clock: { now: number }) {
  const svc = new OrderService(h.name, h.dir, h.beads.service, h.formulas, h.log, {
    clock: () => clock.now,
    tickMs: 0,
    exec: (cmd) => Promise.resolve({ code: cmd === 'false' ? 1 : 0, stdout: `ran ${cmd}`, stderr: '' }),
  });
  await svc.start();
  return svc;
}

t.test(
  'the scheduler journals each firing with its molecule; a restart neither repeats nor silently skips a slot',
  async (t) => {
    const h = await formulaHarness(t);
    await h.formula('f.toml', '[[steps]]\nid = "a"\n[[steps]]\nid = "b"\nneeds = ["a"]\n');
    await mkdir(join(h.dir, 'orders'));
    await writeFile(
      join(h.dir, 'orders', 'nightly.toml'),
      '[order]\nformula = "f"\ngate = "cron"\nschedule = "0 * * * *"\npool = "worker"\n',
    );
    const clock = { now: T0 + 10 * 1000 };
    let svc = await ordersOn(h, clock);
    t.equal(await svc.tick(), 1, 'fires the 00:00 slot');
    t.equal(await svc.tick(), 0, 'not twice in one minute');
    let events = await h.events();
    t.same(
      events.map((e) => e.type),
      ['bead.created', 'bead.created', 'bead.created', 'bead.created', 'order.fired', 'order.completed'],
      'root, two steps, tracking bead and the notices: one batch',
    );
    t.equal(
      events[0]!.payload &&
        (events[0]!.payload as { bead: { metadata: Record<string, string> } }).bead.metadata['gc.routed_to'],
      'worker',
    );
    await svc.stop();
    await h.restart();
    clock.now = T0 + 3 * 60 * MIN + 5 * 1000; // down from 00:00 to 03:00
    svc = await ordersOn(h, clock);
    t.equal(await svc.tick(), 1, 'one batch: the 03:00 slot and the record of the two missed');
    t.equal(await svc.tick(), 0);
    const history = svc.history('nightly');
    t.same(
      history.map((b) => [b.title, b.labels]),
      [
        ['order:nightly', ['order-run:nightly', 'order-tracking', 'wisp']],
        ['order:nightly skipped 2 missed slot(s)', ['order-run:nightly', 'order-skipped']],
        ['f', ['order-run:nightly']],
        ['order:nightly', ['order-run:nightly', 'order-tracking', 'wisp']],
        ['f', ['order-run:nightly']],
      ],
      'newest first: tracking beads, the skip record and the wisp roots',
    );
    await svc.stop();
    await h.restart();
    svc = await ordersOn(h, clock);
    t.equal(await svc.tick(), 0, 'after another restart in the same minute nothing fires again');
    events = await h.events();
    t.equal(events.filter((e) => e.type === 'order.fired').length, 2);
    await svc.setEnabled('nightly', false);
    clock.now += 60 * MIN;
    t.equal(await svc.tick(), 0, 'disabled');
    await svc.stop();
    await h.restart();
    svc = await ordersOn(h, clock);
    t.equal(svc.enabled(svc.get('nightly')), false, 'the disable is journaled and replayed');
    await svc.stop();
  },
);

t.test('exec orders and event triggers', async (t) => {
  const h = await formulaHarness(t);
  await mkdir(join(h.dir, 'orders'));
  await writeFile(
    join(h.dir, 'orders', 'ping.toml'),
    '[order]\nexec = "false"\ngate = "event"\non = "bead.closed"\n',
  );
  const clock = { now: T0 };
  const svc = await ordersOn(h, clock);
  t.equal(await svc.tick(), 0, 'no matching event');
  const bead = await h.beads.service.create({ title: 'x' });
  await h.beads.service.close(bead.bead.id);
  t.equal(await svc.tick(), 1);
  await svc.stop(); // waits for the command's record
  const run = svc.history('ping')[0]!;
  t.match(run, {
    status: 'closed',
    labels: ['order-run:ping', 'order-tracking', 'exec', 'seq:2', 'exec-failed'],
  });
  t.equal(run.metadata?.['convergence.gate_stdout'], 'ran false');
  t.same(
    (await h.events()).slice(-2).map((e) => e.type),
    ['bead.closed', 'order.failed'],
  );
});

t.test(
  'an event order started after its trigger event fires once, and not again after a restart',
  async (t) => {
    // The service reads only `order.*` events of the log it attaches behind; the trigger's newest seq comes
    // from the log itself. (Not `bead.closed`: the order's own tracking bead is closed when its exec ends.)
    const h = await formulaHarness(t);
    await mkdir(join(h.dir, 'orders'));
    await writeFile(
      join(h.dir, 'orders', 'ping.toml'),
      '[order]\nexec = "true"\ngate = "event"\non = "bead.updated"\n',
    );
    const bead = await h.beads.service.create({ title: 'x' });
    await h.beads.service.update(bead.bead.id, { title: 'x2' });
    for (let i = 0; i < 5; i++) await h.beads.service.create({ title: `after ${i}` });
    const clock = { now: T0 };
    const first = await ordersOn(h, clock);
    t.match(
      await first.check(),
      [{ evaluation: { due: true, fire: [2] } }],
      'due for the bead.updated it has not run for',
    );
    t.equal(await first.tick(), 1);
    await first.stop();
    const again = await ordersOn(h, clock);
    t.equal(await again.tick(), 0, 'its run recorded the event: not due again');
    await h.beads.service.update(bead.bead.id, { title: 'x3' });
    t.equal(await again.tick(), 1, 'a newer bead.updated is folded as it lands');
    await again.stop();
  },
);
