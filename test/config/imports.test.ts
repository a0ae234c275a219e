/**
 * V2 pack imports with local sources: `[imports.<binding>]` at the city and `[rigs.imports.<binding>]` at a
 * rig. Agents are named under the binding (`binding.name`, `rig/binding.name`), bare dependencies bound the
 * same way; a remote source is a warning, a missing one an error naming the field.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { effectiveConfigOf } from '../../actors/config/effectiveConfig.ts';
import { bindPack } from '../../machines/config/imports.ts';
import { agentIdentity } from '../../machines/config/layers.ts';

t.test('bindPack names agents and bare dependencies under the binding', async (t) => {
  const doc = bindPack(
    {
      agent: [{ name: 'a', depends_on: ['b', 'rig/x', 'other.c'] }, { name: 'old.b' }],
      named_session: [{ template: 'a' }],
    },
    'gs',
  );
  t.same(doc.agent, [{ name: 'gs.a', depends_on: ['gs.b', 'rig/x', 'other.c'] }, { name: 'gs.b' }]);
  t.same(doc.named_session, [{ template: 'gs.a' }]);
});

t.test('city and rig imports from local directories join the effective config', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-imports-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'vendor', 'town'), { recursive: true });
  writeFileSync(
    join(dir, 'vendor', 'town', 'pack.toml'),
    '[pack]\nname = "town"\nschema = 2\n\n[providers.towncli]\ncommand = "echo"\n\n' +
      '[[agent]]\nname = "mayor"\nprovider = "towncli"\n\n[[agent]]\nname = "refinery"\nscope = "rig"\n',
  );
  const text =
    '[workspace]\nname = "im"\nprovider = "mock"\n\n' +
    '[imports.gs]\nsource = "vendor/town"\n\n[imports.far]\nsource = "https://github.com/x/y"\n\n' +
    '[imports.gone]\nsource = "vendor/none"\n\n' +
    '[[rigs]]\nname = "api"\npath = "/src/api"\n\n[rigs.imports.gs]\nsource = "vendor/town"\n';
  const c = await effectiveConfigOf(dir, text, 'im');
  t.same(c.composed.agents.map((a) => agentIdentity(a)).sort(), [
    'api/gs.mayor',
    'api/gs.refinery',
    'gs.mayor',
  ]);
  t.equal(c.composed.providers.towncli?.command, 'echo');
  t.match(c.composed.sources['agents.gs.mayor.provider'], { origin: 'pack', pack: 'town' });
  t.match(
    c.problems.map((p) => [p.severity, p.field, p.message]),
    [
      ['warning', 'imports.far', /remote ones are not fetched/],
      ['error', 'imports.gone.source', /no pack\.toml/],
    ],
  );
  t.same(
    c.packs.filter((p) => p.name === 'gs'),
    [{ name: 'gs', source: 'vendor/town' }],
    'GET /packs lists the import',
  );
});
