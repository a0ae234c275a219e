import t, { type Test } from 'tap';
import { OrderService } from '../../actors/orders/orderService.ts';
import { formulaHarness, type FormulaHarness, put } from './helpers.ts';

/**
 * Orders of every formula layer (upstream `cityOrderRoots`): each city pack's sibling `orders/`, then
 * `<city>/orders`; a later layer's order replaces an earlier one of the same name, and an order cooks its
 * formula from its own layer.
 */

const T0 = Date.parse('2030-01-01T00:00:00Z');

async function withPack(t: Test) {
  const h = await formulaHarness(t);
  await put(h, 'city.toml', '[workspace]\nincludes = ["packs/base"]\n');
  await put(h, 'packs/base/pack.toml', '[pack]\nname = "base"\nschema = 1\n');
  const clock = { now: T0 + 5_000 };
  const svc = new OrderService(h.name, h.dir, h.beads.service, h.formulas, h.log, {
    clock: () => clock.now,
    tickMs: 0,
    exec: () => Promise.resolve({ code: 0, stdout: '', stderr: '' }),
  });
  t.teardown(() => svc.stop());
  return { h, svc, clock };
}

const stepTitles = async (h: FormulaHarness): Promise<string[]> =>
  (await h.events())
    .filter((e) => e.type === 'bead.created')
    .map((e) => (e.payload as { bead: { title: string } }).bead.title);

t.test('a pack’s order is read and scheduled, cooking the pack’s formula', async (t) => {
  const { h, svc } = await withPack(t);
  await put(h, 'packs/base/formulas/digest.toml', '[[steps]]\nid = "a"\ntitle = "pack step"\n');
  await put(
    h,
    'packs/base/orders/nightly.toml',
    '[order]\nformula = "digest"\ngate = "cron"\nschedule = "0 * * * *"\n',
  );
  await svc.start();
  t.same(
    svc.list().map((o) => [o.name, o.file]),
    [['nightly', 'packs/base/orders/nightly.toml']],
  );
  t.equal(await svc.tick(), 1, 'the 00:00 slot fires');
  t.ok((await stepTitles(h)).includes('pack step'), 'the pack’s formula was cooked');
  t.equal((await h.events()).filter((e) => e.type === 'order.fired').length, 1);
});

t.test('an order cooks from its own layer, even when the city shadows the formula', async (t) => {
  const { h, svc } = await withPack(t);
  await put(h, 'packs/base/formulas/digest.toml', '[[steps]]\nid = "a"\ntitle = "pack step"\n');
  await h.formula('digest.toml', '[[steps]]\nid = "a"\ntitle = "city step"\n');
  await put(
    h,
    'packs/base/orders/nightly.toml',
    '[order]\nformula = "digest"\ngate = "cron"\nschedule = "0 * * * *"\n',
  );
  await put(h, 'orders/hourly.toml', '[order]\nformula = "digest"\ngate = "cron"\nschedule = "0 * * * *"\n');
  await svc.start();
  t.equal(await svc.tick(), 2);
  t.same((await stepTitles(h)).filter((x) => x.endsWith('step')).sort(), ['city step', 'pack step']);
});

t.test(
  'the city’s order replaces a pack’s of the same name; a broken pack order names its file',
  async (t) => {
    const { h, svc } = await withPack(t);
    await put(h, 'packs/base/formulas/digest.toml', '[[steps]]\nid = "a"\n');
    await put(h, 'packs/base/orders/nightly.toml', '[order]\nformula = "digest"\ngate = "manual"\n');
    await put(h, 'packs/base/orders/bad.toml', '[order]\nformula = "digest"\n\ngate = "sometimes"\n');
    await put(h, 'orders/nightly.toml', '[order]\nexec = "true"\ngate = "cooldown"\ninterval = "5m"\n');
    await svc.start();
    t.match(svc.get('nightly'), { file: 'orders/nightly.toml', exec: 'true' });
    t.match(svc.broken, [{ name: 'bad', problems: [{ file: 'packs/base/orders/bad.toml', line: 4 }] }]);
    await put(h, 'city.toml', '');
    await svc.reload();
    t.same(
      svc.list().map((o) => o.name),
      ['nightly'],
      'the pack dropped from city.toml: its orders go at the next reload',
    );
  },
);
