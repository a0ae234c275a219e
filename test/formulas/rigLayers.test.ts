import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { formulaLayers } from '../../actors/formulas/formulaLayers.ts';
import { call, callJson, formulaHarness, type FormulaHarness, put } from './helpers.ts';

/**
 * Rig formula layers (upstream `FormulaLayers.Rigs` / `SearchPaths(rig)`): above the city's layers, each
 * rig adds the `formulas/` of the packs it includes (then imports), then its `formulas_dir`. A rig-scoped
 * lookup (`scope_kind=rig&scope_ref=<rig>`) searches the city's layers and then that rig's; a city-scoped
 * one the city's alone.
 */

const pack = (h: FormulaHarness, dir: string, name: string) =>
  put(h, `${dir}/pack.toml`, `[pack]\nname = "${name}"\nschema = 1\n`);

const step = (description: string) => `description = "${description}"\n[[steps]]\nid = "a"\n`;

const CITY = `[workspace]
name = "c"
includes = ["packs/base"]

[[rigs]]
name = "app"
path = "repos/app"
formulas_dir = "rigs/app/formulas"
includes = ["packs/rigpack"]

[[rigs]]
name = "web"
path = "repos/web"
`;

/** A city with a pack, its own formulas, and rig `app` with a pack and a formulas_dir, all defining mol-x. */
async function layered(t: Test) {
  const h = await formulaHarness(t);
  await put(h, 'city.toml', CITY);
  await pack(h, 'packs/base', 'base');
  await pack(h, 'packs/rigpack', 'rigpack');
  await put(h, 'packs/base/formulas/mol-x.toml', step('city pack'));
  await h.formula('mol-x.toml', step('city'));
  await put(h, 'packs/rigpack/formulas/mol-x.toml', step('rig pack'));
  await put(h, 'packs/rigpack/formulas/mol-rp.toml', step('only in the rig pack'));
  await put(h, 'rigs/app/formulas/mol-x.toml', step('rig'));
  await put(h, 'rigs/app/formulas/mol-app.toml', step('only in the rig'));
  return h;
}

const description = async (h: FormulaHarness, path: string): Promise<string> => {
  const res = await call(h, 'GET', path);
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  return res.json<{ description: string }>().description;
};

const names = async (h: FormulaHarness, query = ''): Promise<string[]> => {
  const res = await call(h, 'GET', `/formulas${query}`);
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  return res.json<{ items: { name: string }[] }>().items.map((i) => i.name);
};

const APP = '?scope_kind=rig&scope_ref=app';

t.test(
  'a rig lookup: its formulas_dir, then its pack, then the city’s; a city lookup: the city’s',
  async (t) => {
    const h = await layered(t);
    t.equal(await description(h, '/formulas/mol-x'), 'city');
    t.equal(await description(h, `/formulas/mol-x?scope_kind=city&scope_ref=${h.name}`), 'city');
    t.equal((await call(h, 'GET', '/formulas/mol-app')).statusCode, 404, 'a rig’s formula is not the city’s');
    t.same(await names(h), ['mol-x']);
    t.equal(await description(h, `/formulas/mol-x${APP}`), 'rig');
    t.equal(await description(h, `/formula/mol-x${APP}`), 'rig', 'the alias path too');
    await rm(join(h.dir, 'rigs/app/formulas/mol-x.toml'));
    t.equal(await description(h, `/formulas/mol-x${APP}`), 'rig pack', 'the rig’s pack under its own dir');
    await rm(join(h.dir, 'packs/rigpack/formulas/mol-x.toml'));
    t.equal(await description(h, `/formulas/mol-x${APP}`), 'city', 'then the city’s layers');
    t.equal(await description(h, '/formulas/mol-x?scope_kind=rig&scope_ref=web'), 'city', 'a rig with none');
  },
);

t.test('a rig-scoped list, preview and runs search the rig’s layers too', async (t) => {
  const h = await layered(t);
  t.same(await names(h, APP), ['mol-app', 'mol-rp', 'mol-x']);
  t.same(await names(h, '?scope_kind=rig&scope_ref=web'), ['mol-x']);
  const preview = await call(h, 'POST', '/formulas/mol-app/preview', {
    target: 'w',
    scope_kind: 'rig',
    scope_ref: 'app',
  });
  t.equal(preview.statusCode, 200, preview.body);
  t.equal(preview.json().description, 'only in the rig');
  const runs = await call(h, 'GET', `/formulas/mol-rp/runs${APP}`);
  t.equal(runs.statusCode, 200, runs.body);
  t.match(runs.json(), { formula: 'mol-rp', recent_runs: [] });
  t.equal((await call(h, 'GET', '/formulas/mol-rp/runs')).statusCode, 404, 'not in the city scope');
});

t.test('an unknown rig scope is a 404; nothing is written', async (t) => {
  const h = await layered(t);
  const res = await call(h, 'GET', '/formulas?scope_kind=rig&scope_ref=nope');
  t.equal(res.statusCode, 404, res.body);
  t.match(res.json().detail, /rig nope not found/);
  t.equal((await call(h, 'GET', '/formulas/mol-x?scope_kind=rig&scope_ref=nope')).statusCode, 404);
  t.equal((await h.events()).length, 0);
});

t.test('the layers: rig includes, then imports, then formulas_dir; orders beside each', async (t) => {
  const h = await formulaHarness(t);
  await pack(h, 'packs/one', 'one');
  await pack(h, 'packs/two', 'two');
  await pack(h, 'packs/bare', 'bare');
  await put(h, 'packs/one/formulas/a.toml', step('one'));
  await put(h, 'packs/two/formulas/a.toml', step('two'));
  await put(
    h,
    'city.toml',
    `[[rigs]]
name = "app"
path = "repos/app"
formulas_dir = "rigs/app/wf"
includes = ["packs/one", "packs/bare"]
[rigs.imports.tools]
source = "packs/two"

[[rigs]]
name = "web"
path = "/srv/web"
suspended = true

[[patches.rigs]]
name = "app"
suspended = true
`,
  );
  const all = await formulaLayers(h.dir);
  t.same(
    all.city.map((l) => l.formulas.label),
    ['formulas'],
  );
  t.same(
    all.rigs.map((r) => ({
      name: r.name,
      root: r.root,
      suspended: r.suspended,
      layers: r.layers.map((l) => [l.formulas.label, l.orders.label]),
    })),
    [
      {
        name: 'app',
        root: join(h.dir, 'repos/app'),
        suspended: true,
        layers: [
          ['packs/one/formulas', 'packs/one/orders'],
          ['packs/two/formulas', 'packs/two/orders'],
          ['rigs/app/wf', 'rigs/app/orders'],
        ],
      },
      { name: 'web', root: '/srv/web', suspended: true, layers: [] },
    ],
    'a pack without formulas/ adds none; a patch may suspend a rig',
  );
  t.equal(await description(h, `/formulas/a${APP}`), 'two', 'an import above an include');
});

t.test('runs, feeds and workflows answer for the scope they are asked about', async (t) => {
  // A workflow launched in a rig (a rig sling, a rig's order) is in that rig's scope; the city's in its own.
  const h = await layered(t);
  const inRig = (await h.formulas.cook('mol-x', { rig: 'app' })).root;
  const inCity = (await h.formulas.cook('mol-x')).root;
  t.match(inRig.metadata, { 'gc.scope_kind': 'rig', 'gc.scope_ref': 'app' });
  t.match(inCity.metadata, { 'gc.scope_kind': 'city', 'gc.scope_ref': h.name });
  const CITY_SCOPE = `?scope_kind=city&scope_ref=${h.name}`;
  const runs = async (query: string): Promise<string[]> => {
    const { body } = await callJson(h, 'GET', `/formulas/mol-x/runs${query}`);
    return (body.recent_runs as { workflow_id: string }[]).map((r) => r.workflow_id);
  };
  t.same(await runs(APP), [inRig.id]);
  t.same(await runs(CITY_SCOPE), [inCity.id]);
  t.same((await runs('')).sort(), [inCity.id, inRig.id].sort(), 'no scope: every run');
  const feed = async (path: string, query: string): Promise<string[][]> => {
    const { body } = await callJson(h, 'GET', `${path}${query}`);
    const items = body.items as { workflow_id: string; scope_kind: string; scope_ref: string }[];
    return items.map((i) => [i.workflow_id, i.scope_kind, i.scope_ref]);
  };
  t.same(await feed('/formulas/feed', APP), [[inRig.id, 'rig', 'app']]);
  t.same(await feed('/formulas/feed', CITY_SCOPE), [[inCity.id, 'city', h.name]]);
  t.equal((await feed('/formulas/feed', '')).length, 2);
  t.equal((await call(h, 'GET', '/formulas/feed?scope_kind=rig&scope_ref=nope')).statusCode, 404);
  const snap = await call(h, 'GET', `/workflow/${inRig.id}${APP}`);
  t.equal(snap.statusCode, 200, snap.body);
  t.match(snap.json(), { scope_kind: 'rig', scope_ref: 'app', root_store_ref: 'rig:app' });
  t.equal((await call(h, 'GET', `/workflow/${inRig.id}${CITY_SCOPE}`)).statusCode, 404, 'not the city’s');
  t.equal((await call(h, 'GET', `/workflow/${inRig.id}`)).statusCode, 200, 'no scope: found');
  const before = (await h.events()).length;
  const refused = await call(h, 'DELETE', `/workflow/${inRig.id}${CITY_SCOPE}`);
  t.equal(refused.statusCode, 404, refused.body);
  t.equal((await h.events()).length, before, 'nothing written');
  t.equal((await call(h, 'DELETE', `/workflow/${inRig.id}${APP}`)).statusCode, 200);
});
