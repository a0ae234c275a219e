import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { cityFormulaLayers } from '../../actors/formulas/formulaLayers.ts';
import { call, formulaHarness, type FormulaHarness, put } from './helpers.ts';

/**
 * Formula layers (upstream `FormulaLayers.City`): each city pack's `formulas/` in include order, then the
 * city's `[formulas].dir`; a later layer shadows an earlier one by file name. Served by the formula routes.
 */

/** Writes `rel` (relative to the city), making its directory. */
const pack = (h: FormulaHarness, dir: string, name: string) =>
  put(h, `${dir}/pack.toml`, `[pack]\nname = "${name}"\nschema = 1\n`);

const names = async (h: FormulaHarness): Promise<string[]> => {
  const res = await call(h, 'GET', '/formulas');
  if (res.statusCode !== 200) throw new Error(res.body);
  return res.json<{ items: { name: string }[] }>().items.map((i) => i.name);
};

t.test('a pack formula is listed, shown and cooked', async (t) => {
  const h = await formulaHarness(t);
  await put(h, 'city.toml', '[workspace]\nname = "c"\nincludes = ["packs/base"]\n');
  await pack(h, 'packs/base', 'base');
  await put(h, 'packs/base/formulas/mol-pack.toml', 'description = "from the pack"\n[[steps]]\nid = "a"\n');
  await h.formula('mol-city.toml', '[[steps]]\nid = "b"\n');
  t.same(await names(h), ['mol-city', 'mol-pack']);
  const detail = await call(h, 'GET', '/formulas/mol-pack');
  t.equal(detail.statusCode, 200, detail.body);
  t.equal(detail.json().description, 'from the pack');
  const cooked = await call(h, 'POST', '/formulas/mol-pack/cook', {});
  t.equal(cooked.statusCode, 201, cooked.body);
  t.equal(cooked.json().bead_ids.length, 2, 'root and its one step');
});

t.test('the city’s own file shadows a pack’s of the same name; a later pack an earlier one', async (t) => {
  const h = await formulaHarness(t);
  await put(h, 'city.toml', '[workspace]\nincludes = ["packs/one", "packs/two"]\n');
  await pack(h, 'packs/one', 'one');
  await pack(h, 'packs/two', 'two');
  await put(h, 'packs/one/formulas/mol-x.toml', 'description = "one"\n[[steps]]\nid = "a"\n');
  await put(h, 'packs/one/formulas/mol-y.toml', 'description = "one"\n[[steps]]\nid = "a"\n');
  await put(h, 'packs/two/formulas/mol-y.toml', 'description = "two"\n[[steps]]\nid = "a"\n');
  await h.formula('mol-x.toml', 'description = "city"\n[[steps]]\nid = "a"\n');
  const description = async (name: string) =>
    (await call(h, 'GET', `/formulas/${name}`)).json<{ description: string }>().description;
  t.equal(await description('mol-x'), 'city');
  t.equal(await description('mol-y'), 'two');
  t.same(await names(h), ['mol-x', 'mol-y'], 'each name once');
  await rm(join(h.dir, 'formulas', 'mol-x.toml'));
  t.equal(await description('mol-x'), 'one', 'the pack’s shows once the city’s is gone');
});

t.test('a broken pack formula is a problem naming its file and line', async (t) => {
  const h = await formulaHarness(t);
  await put(h, 'city.toml', '[workspace]\nincludes = ["packs/base"]\n');
  await pack(h, 'packs/base', 'base');
  await put(h, 'packs/base/formulas/loop.toml', 'description = "x"\n\n[[steps]]\nid = "a"\nneeds = ["a"]\n');
  const list = await call(h, 'GET', '/formulas');
  t.match(list.json(), { partial: true, total: 0 });
  const res = await call(h, 'POST', '/formulas/loop/cook', {});
  t.equal(res.statusCode, 422, res.body);
  t.match(res.json().errors, [{ location: 'packs/base/formulas/loop.toml:3', value: 'steps[0].needs' }]);
  t.equal((await h.events()).length, 0, 'nothing written');
});

t.test('layers follow city.toml: an include added later, [formulas].dir, a V2 import', async (t) => {
  const h = await formulaHarness(t);
  await pack(h, 'packs/late', 'late');
  await put(h, 'packs/late/formulas/mol-late.toml', '[[steps]]\nid = "a"\n');
  await h.formula('mol-city.toml', '[[steps]]\nid = "a"\n');
  t.same(await names(h), ['mol-city'], 'no city.toml: the city’s formulas/ only');
  await put(h, 'city.toml', '[workspace]\nincludes = ["packs/late"]\n');
  t.same(await names(h), ['mol-city', 'mol-late'], 'seen without a restart');
  await put(h, 'wf/mol-wf.toml', '[[steps]]\nid = "a"\n');
  await put(h, 'city.toml', '[formulas]\ndir = "wf"\n\n[imports.tools]\nsource = "packs/late"\n');
  t.same(await names(h), ['mol-late', 'mol-wf'], '[formulas].dir replaces formulas/; the import is a layer');
  t.same(
    (await cityFormulaLayers(h.dir)).map((l) => [l.formulas.label, l.orders.label]),
    [
      ['packs/late/formulas', 'packs/late/orders'],
      ['wf', 'orders'],
    ],
    'the city’s orders stay in <city>/orders whatever its formula dir',
  );
});

t.test('a pack without formulas/ and the city’s own pack.toml add no layer', async (t) => {
  const h = await formulaHarness(t);
  await put(h, 'city.toml', '[workspace]\nincludes = ["packs/bare"]\n[formulas]\ndir = "wf"\n');
  await pack(h, 'packs/bare', 'bare');
  await put(h, 'packs/bare/orders/o.toml', '[order]\nexec = "true"\ngate = "manual"\n');
  await pack(h, '.', 'city');
  t.same(
    (await cityFormulaLayers(h.dir)).map((l) => l.formulas.label),
    ['wf'],
    'as upstream: a pack is a layer only when its formulas/ exists',
  );
});
