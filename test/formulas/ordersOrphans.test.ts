import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import type { ExecRunner } from '../../actors/orders/orderCommands.ts';
import { OrderService } from '../../actors/orders/orderService.ts';
import { formulaHarness, type FormulaHarness } from './helpers.ts';

/**
 * What a restart finds: an exec run cut off mid-command is closed as failed (the order is not held
 * forever), and an order whose file did not parse at start but is fixed later still knows the slots it
 * fired before.
 */

const T0 = Date.parse('2030-01-01T00:00:00Z');

const ordersOn = async (h: FormulaHarness, now: number, exec: ExecRunner) => {
  const svc = new OrderService(h.name, h.dir, h.beads.service, h.formulas, h.log, {
    clock: () => now,
    tickMs: 0,
    exec,
    onError: () => undefined,
  });
  await svc.start();
  return svc;
};

t.test('an exec cut off by a stop is closed as failed at the next start', async (t) => {
  const h = await formulaHarness(t);
  await mkdir(join(h.dir, 'orders'));
  await writeFile(
    join(h.dir, 'orders', 'slow.toml'),
    '[order]\nexec = "sleep 600"\ngate = "cooldown"\ninterval = "1m"\n',
  );
  const pending: (() => void)[] = [];
  const never: ExecRunner = () =>
    new Promise((resolve) => pending.push(() => resolve({ code: 0, stdout: '', stderr: '' })));
  const crashed = await ordersOn(h, T0, never);
  t.equal(await crashed.tick(), 1);
  t.equal(await crashed.tick(T0 + 5 * 60_000), 0, 'held while its run is open');
  await h.restart(); // the old service is abandoned, its command still "running"
  const svc = await ordersOn(h, T0 + 5 * 60_000, never);
  const [run] = svc.history('slow');
  t.match(run, { status: 'closed', labels: ['order-run:slow', 'order-tracking', 'exec', 'exec-failed'] });
  t.equal(run!.metadata?.['gc.error'], 'the controller stopped before the command ended');
  t.same(
    (await h.events()).slice(-2).map((e) => e.type),
    ['bead.closed', 'order.failed'],
  );
  t.equal(await svc.tick(), 1, 'the order runs again');
  for (const release of pending) release();
  await crashed.stop(); // its late record finds the old store closed: reported, not written
  await svc.stop();
});

t.test('an order that did not parse at start, fixed later, does not fire its slot again', async (t) => {
  const h = await formulaHarness(t);
  await h.formula('f.toml', '[[steps]]\nid = "a"\n');
  await mkdir(join(h.dir, 'orders'));
  const file = join(h.dir, 'orders', 'hourly.toml');
  const good = '[order]\nformula = "f"\ngate = "cron"\nschedule = "0 * * * *"\n';
  await writeFile(file, good);
  const first = await ordersOn(h, T0 + 10_000, () => Promise.reject(new Error('no exec')));
  t.equal(await first.tick(), 1);
  await first.stop();
  await h.restart();
  await writeFile(file, good.replace('cron', 'sometimes'));
  const svc = await ordersOn(h, T0 + 30_000, () => Promise.reject(new Error('no exec')));
  t.same(
    svc.broken.map((b) => b.name),
    ['hourly'],
  );
  await writeFile(file, good);
  await svc.reload();
  t.equal(await svc.tick(), 0, 'the 00:00 slot was fired before the restart');
  t.match(await svc.check(T0 + 30_000), [{ evaluation: { reason: 'cron: already run this minute' } }]);
  await svc.stop();
});
