/**
 * Orders across restarts, end to end: a real supervisor over HTTP whose cities run the bead store, the
 * formulas and the orders service, the scheduler ticking on its own timer against a simulated clock. An
 * hourly order fires once for its slot however many ticks pass; the supervisor stops (the city with it)
 * and comes back at 03:30: the order with catch_up = latest fires the newest missed slot (03:00) and
 * records the two older ones as skipped, the one with catch_up = all fires all three, the one with
 * catch_up = none fires nothing but records the three; another restart fires nothing again, and the next
 * slot fires once.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { beadStoreService } from '../../actors/beads/index.ts';
import { formulaServiceFactory } from '../../actors/formulas/startFormulaService.ts';
import { orderServiceFactory } from '../../actors/orders/startOrderService.ts';
import { eventually, fakeHost, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

const CITY = 'clockwork';
const base = `/v0/city/${CITY}`;
const T0 = Date.parse('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;

t.test('no slot fires twice and none is skipped silently across a stop and a restart', async (t) => {
  const clock = { now: T0 + 10_000, ticks: 0 };
  const services = [
    beadStoreService,
    formulaServiceFactory,
    orderServiceFactory({
      tickMs: 20,
      clock: () => {
        clock.ticks++;
        return clock.now;
      },
    }),
  ];
  const first = await startTestSupervisor(t, { tickMs: 200 });
  await first.close();
  const start = () =>
    startTestSupervisor(t, {
      tickMs: 200,
      root: first.root,
      options: { services, host: fakeHost(first.home, { bins: ['sh', 'node'] }) },
    });
  let s = await start();
  const dir = join(s.home, CITY);
  const created = await s.call('POST', '/v0/city', { dir, provider: 'mock' });
  t.equal((await waitForTerminal(s.log, created.body.request_id, 20_000)).type, 'request.result.city.create');
  mkdirSync(join(dir, 'formulas'), { recursive: true });
  mkdirSync(join(dir, 'orders'), { recursive: true });
  writeFileSync(join(dir, 'formulas', 'digest.toml'), '[[steps]]\nid = "collect"\n');
  for (const catchUp of ['latest', 'all', 'none'])
    writeFileSync(
      join(dir, 'orders', `${catchUp}.toml`),
      `[order]\nformula = "digest"\ngate = "cron"\nschedule = "0 * * * *"\ncatch_up = "${catchUp}"\n`,
    );

  type Entry = { labels: string[]; bead_id: string };
  const history = async (name: string): Promise<Entry[]> => {
    const res = await s.call('GET', `${base}/orders/history?scoped_name=${name}&limit=100`);
    return (res.body?.entries ?? []) as Entry[];
  };
  const tracking = async (name: string) =>
    (await history(name)).filter((e) => e.labels.includes('order-tracking'));
  // While the city starts its routes answer 404: no events yet.
  const fired = async () => {
    const res = await s.call('GET', `${base}/events?limit=1000`);
    const items = (res.status === 200 ? res.body.items : []) as { type: string; subject: string }[];
    return items
      .filter((e) => e.type === 'order.fired')
      .map((e) => e.subject)
      .sort();
  };
  const moreTicks = async (n: number) => {
    const from = clock.ticks;
    await eventually(() => clock.ticks >= from + n, 10_000);
  };

  await eventually(async () => (await fired()).length === 3, 10_000);
  await moreTicks(10);
  t.same(
    await fired(),
    ['all', 'latest', 'none'],
    'each order fires its 00:00 slot once, however many ticks',
  );

  await s.close();
  clock.now = T0 + 3.5 * HOUR + 5_000; // down from 00:00 to 03:30
  s = await start();
  await eventually(async () => (await fired()).length === 3 + 1 + 3, 20_000);
  await moreTicks(10);
  t.same(
    await fired(),
    ['all', 'all', 'all', 'all', 'latest', 'latest', 'none'],
    'latest catches up the 03:00 slot, all fires 01:00, 02:00 and 03:00, none fires nothing',
  );
  const latest = await history('latest');
  t.same(
    latest.map((e) => e.labels.filter((l) => l.startsWith('order-'))),
    [
      ['order-run:latest', 'order-tracking'],
      ['order-run:latest', 'order-skipped'],
      ['order-run:latest'],
      ['order-run:latest', 'order-tracking'],
      ['order-run:latest'],
    ],
    'the two missed slots are recorded, not dropped',
  );
  const skipped = (await s.call('GET', `${base}/bead/${latest[1]!.bead_id}`)).body;
  t.match(skipped.metadata, {
    'gc.skipped_count': '2',
    'gc.skipped_from': '2030-01-01T01:00:00.000Z',
    'gc.skipped_to': '2030-01-01T02:00:00.000Z',
  });
  t.equal((await tracking('all')).length, 4);
  const none = await history('none');
  t.match(none[0], { labels: ['order-run:none', 'order-skipped'] });
  t.equal((await s.call('GET', `${base}/bead/${none[0]!.bead_id}`)).body.metadata['gc.skipped_count'], '3');

  await s.close();
  clock.now += 20_000;
  s = await start();
  await eventually(async () => (await s.call('GET', `${base}/orders`)).status === 200, 20_000);
  await moreTicks(10);
  t.equal((await fired()).length, 7, 'a restart within the same minute fires nothing again');
  const checks = (await s.call('GET', `${base}/orders/check`)).body.checks as { reason: string }[];
  t.same(
    checks.map((c) => c.reason),
    ['cron: schedule not matched', 'cron: schedule not matched', 'cron: schedule not matched'],
  );
  clock.now = T0 + 4 * HOUR + 5_000;
  await eventually(async () => (await fired()).length === 10, 10_000);
  await moreTicks(10);
  t.equal((await fired()).length, 10, 'the 04:00 slot fires once for each order');
  await s.close();
});
