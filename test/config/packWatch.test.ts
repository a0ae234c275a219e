/**
 * A pack edit reaches the running city as a city.toml edit does: the packs the config reads are watched,
 * an edit that changes the composed config is recorded (`config.changed`, source `file`, `target` the
 * pack file) and adopted; an edit that changes nothing records nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { packRootOf } from '../../actors/config/packWatch.ts';
import { eventually } from '../helpers/supervisor.ts';
import { configHarness } from './helpers.ts';

t.test('pack roots of source files', async (t) => {
  t.equal(packRootOf('packs/gastown/agents/polecat/agent.toml'), 'packs/gastown');
  t.equal(packRootOf('packs/gastown/pack.toml'), 'packs/gastown');
  t.equal(packRootOf('city.toml'), '.');
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

  // A write that changes nothing composed (a comment) records nothing of its own: the two writes below
  // make one record (named after the file whose notice found the change).
  const head = await h.journal.head();
  writeFileSync(join(h.dir, 'packs/town/pack.toml'), '[pack]\nname = "town"\nschema = 2\n# a comment\n');
  writeFileSync(join(h.dir, 'packs/town/agents/scout/agent.toml'), 'scope = "city"\nnudge = "look again"\n');
  await eventually(
    async () => (await h.journal.list({ afterSeq: head, type: 'config.changed' })).length > 0,
    5000,
  );
  const after = await h.journal.list({ afterSeq: head, type: 'config.changed' });
  t.equal(after.length, 1, 'only the edit that changed the agent is recorded');
  t.match(after[0]!.payload, { target: /^packs\/town\/(pack\.toml|agents\/scout\/agent\.toml)$/ });
});
