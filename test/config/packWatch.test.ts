/**
 * A pack edit reaches the running city as a city.toml edit does: the packs the config reads are watched,
 * an edit that changes the composed config is recorded (`config.changed`, source `file`, `target` the
 * pack file) and adopted; an edit that changes nothing records nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { configWriterFor } from '../../actors/config/configWriter.ts';
import { packRootOf } from '../../actors/config/packWatch.ts';
import { eventually } from '../helpers/supervisor.ts';
import { configHarness } from './helpers.ts';

t.test('pack roots of source files', async (t) => {
  t.equal(packRootOf('packs/gastown/agents/polecat/agent.toml'), 'packs/gastown');
  t.equal(packRootOf('packs/gastown/pack.toml'), 'packs/gastown');
  t.equal(packRootOf('city.toml'), '.');
});

t.test("the first agent in a rig's own pack is recorded and adopted", async (t) => {
  const h = await configHarness(t, {
    toml:
      '[workspace]\nname = "demo"\nprovider = "mock"\n\n[[rigs]]\nname = "proj"\npath = "repos/proj"\n\n' +
      '[rigs.imports.crew]\nsource = "packs/crew"\n',
    files: {
      'repos/proj/.keep': '',
      'packs/crew/pack.toml': '[pack]\nname = "crew"\nschema = 2\n',
      'packs/crew/agents/cook/agent.toml': 'scope = "rig"\n',
    },
  });
  const agents = async () =>
    ((await h.service.config()).agents ?? []).map((a: { name: string; dir?: string }) => a.name).sort();
  const before = await agents();
  t.ok(
    before.some((n) => n.endsWith('cook')),
    JSON.stringify(before),
  );
  const head = await h.journal.head();
  mkdirSync(join(h.dir, 'packs/crew/agents/baker'), { recursive: true });
  writeFileSync(join(h.dir, 'packs/crew/agents/baker/agent.toml'), 'scope = "rig"\n');
  await eventually(
    async () => (await h.journal.list({ afterSeq: head, type: 'config.changed' })).length > 0,
    5000,
  );
  t.ok(
    (await agents()).some((n) => n.endsWith('baker')),
    'the rig pack agent is derived',
  );
});

t.test('a new agent in an imported pack is recorded and adopted', async (t) => {
  const h = await configHarness(t, {
    toml: '[workspace]\nname = "demo"\nprovider = "mock"\n\n[imports.town]\nsource = "packs/town"\n',
    files: {
      'packs/town/pack.toml': '[pack]\nname = "town"\nschema = 2\n',
      'packs/town/agents/mayor/agent.toml': 'scope = "city"\n',
    },
  });
  const agents = async () =>
    ((await h.service.config()).agents ?? []).map((a: { name: string }) => a.name).sort();
  t.same(await agents(), ['town.mayor']);
  const before = await h.journal.head();
  mkdirSync(join(h.dir, 'packs/town/agents/scout'), { recursive: true });
  writeFileSync(join(h.dir, 'packs/town/agents/scout/agent.toml'), 'scope = "city"\nnudge = "look"\n');
  await eventually(
    async () => (await h.journal.list({ afterSeq: before, type: 'config.changed' })).length > 0,
    5000,
  );
  const [changed] = await h.journal.list({ afterSeq: before, type: 'config.changed' });
  t.match(changed!.payload, {
    source: 'file',
    kind: 'file',
    op: 'edited',
    valid: true,
    target: /^packs\/town\/agents\/scout/,
  });
  t.same(await agents(), ['town.mayor', 'town.scout'], 'the agents are derived again');

  // A pack write that changes nothing composed (a comment) records nothing.
  writeFileSync(join(h.dir, 'packs/town/pack.toml'), '[pack]\nname = "town"\nschema = 2\n# a comment\n');
  const writer = configWriterFor(h.dir, h.name);
  const current = await writer.read();
  writer.setKnown(current.sha256);
  const head = await h.journal.head();
  t.equal(await writer.checkPacks(h.log, 'packs/town/pack.toml', current), undefined);
  t.equal(await h.journal.head(), head, 'nothing recorded');
});
