/**
 * Upstream's example cities (test/fixtures/upstream, gascity a46ccb1) load as upstream loads them: the
 * agent rosters, pools, rig stamping and named sessions that upstream's own gastown_test.go and
 * swarm_test.go expect, and the formula layers of the packs an import reaches.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t, { type Test } from 'tap';
import { effectiveConfig, effectiveConfigOf } from '../../actors/config/effectiveConfig.ts';
import { formulaLayers } from '../../actors/formulas/formulaLayers.ts';
import { agentIdentity, type Table } from '../../machines/config/layers.ts';
import { instanceName, templateOf } from '../../machines/agents/templates.ts';

const EXAMPLES = join(import.meta.dirname, '..', 'fixtures', 'upstream', 'gascity', 'examples');
const example = (name: string) => join(EXAMPLES, name);
const cityToml = (name: string) => readFileSync(join(example(name), 'city.toml'), 'utf8');
const errors = (c: { problems: Array<{ severity: string }> }) =>
  c.problems.filter((p) => p.severity === 'error');
const byId = (agents: Table[]) => new Map(agents.map((a) => [agentIdentity(a), a]));

/** city.toml with a rig that takes the example's pack the way upstream's docs say to add one. */
const withRig = (name: string, rigPack: string) =>
  `${cityToml(name)}\n[[rigs]]\nname = "proj"\npath = "proj"\n${rigPack}`;

t.test('gastown without rigs: the four city agents of the import, bound under gastown', async (t) => {
  const c = await effectiveConfig({ path: example('gastown'), name: 'gastown' });
  t.same(errors(c), []);
  t.equal(c.composed.workspace.name, 'gastown');
  // TestCityAgentsFilter: mayor, deacon, boot and the effective dog; no rig agent without a rig.
  t.same(c.composed.agents.map(agentIdentity).sort(), [
    'gastown.boot',
    'gastown.deacon',
    'gastown.dog',
    'gastown.mayor',
  ]);
  for (const a of c.composed.agents) t.equal(a.dir, undefined, `${agentIdentity(a)} is a city agent`);
  // TestExpandedCityUsesGastownDogOverride: maintenance's fallback dog, patched by gastown.
  const dog = byId(c.composed.agents).get('gastown.dog')!;
  t.equal(dog.work_dir, '.gc/agents/dogs/{{.AgentBase}}');
  t.equal(dog.prompt_template, 'packs/maintenance/agents/dog/prompt.template.md');
  t.equal(dog.overlay_dir, 'packs/maintenance/agents/dog/overlay');
  t.equal((dog.session_live as string[]).length, 2);
  t.match((dog.session_live as string[])[0], /tmux-theme\.sh/);
  t.match((dog.session_live as string[])[1], /tmux-keybindings\.sh/);
  t.notMatch((dog.session_live as string[])[0], /\{\{\.ConfigDir\}\}/, '[global] ConfigDir is the pack dir');
  // TestPackUsesIsolatedWorkDirs (city part).
  t.equal(byId(c.composed.agents).get('gastown.mayor')!.work_dir, '.gc/agents/mayor');
  t.same(
    c.city.namedSessions,
    [
      { name: 'gastown.mayor', template: 'gastown.mayor', mode: 'always' },
      { name: 'gastown.deacon', template: 'gastown.deacon', mode: 'always' },
      { name: 'gastown.boot', template: 'gastown.boot', mode: 'always' },
    ],
    'rig-scoped named sessions are not made at city scope',
  );
  t.match(c.composed.sources['agents.gastown.mayor.nudge'], {
    origin: 'pack',
    file: 'packs/gastown/agents/mayor/agent.toml',
  });
  // TestFormulasDir: the layers of both packs the import reaches, maintenance's below gastown's.
  const layers = (await formulaLayers(example('gastown'))).city.map((l) => l.formulas.label);
  t.same(layers, ['packs/maintenance/formulas', 'packs/gastown/formulas', 'formulas']);
});

t.test('gastown with a rig importing the pack: witness, refinery and the polecat pool per rig', async (t) => {
  const c = await effectiveConfigOf(
    example('gastown'),
    withRig('gastown', '\n[rigs.imports.gastown]\nsource = "packs/gastown"\n'),
    'gastown',
  );
  t.same(errors(c), []);
  const agents = byId(c.composed.agents);
  t.same([...agents.keys()].filter((id) => id.startsWith('proj/')).sort(), [
    'proj/gastown.polecat',
    'proj/gastown.refinery',
    'proj/gastown.witness',
  ]);
  const polecat = templateOf(c.city.agents.find((a) => a.dir === 'proj' && a.name === 'gastown.polecat')!);
  t.match(polecat, { qualified: 'proj/gastown.polecat', pool: true, min: 0, max: 5 });
  t.equal(agents.get('proj/gastown.polecat')!.work_dir, '.gc/worktrees/{{.Rig}}/polecats/{{.AgentBase}}');
  t.equal(agents.get('proj/gastown.polecat')!.namepool, 'packs/gastown/agents/polecat/namepool.txt');
  // Upstream's poolInstanceName: the namepool's names (Mad Max), binding and rig kept.
  t.same(
    Array.from({ length: 5 }, (_, i) => instanceName(polecat, i + 1)),
    [
      'proj/gastown.furiosa',
      'proj/gastown.nux',
      'proj/gastown.slit',
      'proj/gastown.rictus',
      'proj/gastown.capable',
    ],
  );
  t.same(
    c.city.namedSessions?.filter((n) => n.name.startsWith('proj/')),
    [
      { name: 'proj/gastown.witness', template: 'proj/gastown.witness', mode: 'always' },
      { name: 'proj/gastown.refinery', template: 'proj/gastown.refinery', mode: 'on_demand' },
    ],
  );
  const rig = (await formulaLayers(example('gastown'))).rigs;
  t.same(rig, [], 'the committed city has no rig');
});

t.test('swarm: three city agents from workspace.includes, coder and committer per rig', async (t) => {
  const alone = await effectiveConfig({ path: example('swarm'), name: 'swarm' });
  t.same(errors(alone), []);
  t.same(alone.composed.agents.map(agentIdentity).sort(), ['deacon', 'dog', 'mayor']);
  t.same(
    alone.city.namedSessions?.map((n) => [n.name, n.mode]),
    [
      ['mayor', 'on_demand'],
      ['deacon', 'always'],
    ],
  );
  const c = await effectiveConfigOf(
    example('swarm'),
    withRig('swarm', 'includes = ["packs/swarm"]\n'),
    'swarm',
  );
  t.same(errors(c), []);
  t.same(c.composed.agents.map(agentIdentity).sort(), [
    'deacon',
    'dog',
    'mayor',
    'proj/coder',
    'proj/committer',
  ]);
  t.match(templateOf(c.city.agents.find((a) => a.dir === 'proj' && a.name === 'coder')!), {
    pool: true,
    min: 1,
    max: 5,
  });
  t.same(c.city.namedSessions?.at(-1), {
    name: 'proj/committer',
    template: 'proj/committer',
    mode: 'on_demand',
  });
});

t.test('lifecycle: no city agent; a rig including the pack gets its polecat pool and refinery', async (t) => {
  const alone = await effectiveConfig({ path: example('lifecycle'), name: 'lifecycle' });
  t.same(errors(alone), []);
  t.same(alone.composed.agents, []);
  const c = await effectiveConfigOf(
    example('lifecycle'),
    withRig('lifecycle', 'includes = ["packs/lifecycle"]\n'),
    'lifecycle',
  );
  t.same(errors(c), []);
  t.same(c.composed.agents.map(agentIdentity).sort(), ['proj/polecat', 'proj/refinery']);
  t.equal(
    byId(c.composed.agents).get('proj/polecat')!.start_command,
    '{{.ConfigDir}}/assets/scripts/mock-polecat.sh',
  );
});

t.test(
  'hyperscale: k8s is an error naming [session] provider; subprocess loads the worker pool',
  async (t) => {
    const k8s = await effectiveConfig({ path: example('hyperscale'), name: 'hyperscale' });
    t.match(errors(k8s), [
      { file: 'city.toml', field: 'session.provider', message: /"k8s" is not available in this supervisor/ },
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'gc-hyperscale-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    cpSync(example('hyperscale'), dir, { recursive: true });
    const text = cityToml('hyperscale').replace('provider = "k8s"', 'provider = "subprocess"');
    writeFileSync(join(dir, 'city.toml'), text);
    t.same(
      (await effectiveConfig({ path: dir, name: 'hyperscale' })).composed.agents,
      [],
      'worker is rig-scoped',
    );
    const rig =
      '\n[[rigs]]\nname = "proj"\npath = "proj"\n\n[rigs.imports.hyperscale]\nsource = "packs/hyperscale"\n';
    writeFileSync(join(dir, 'city.toml'), text + rig);
    const c = await effectiveConfig({ path: dir, name: 'hyperscale' });
    t.same(errors(c), []);
    t.same(c.composed.agents.map(agentIdentity), ['proj/hyperscale.worker']);
    t.match(templateOf(c.city.agents[0]!), { pool: true, max: 100 });
    t.equal(c.city.session?.provider, 'subprocess');
    t.match(
      c.problems.filter((p) => p.field.startsWith('session.')),
      [{ severity: 'warning', field: 'session.k8s', message: /not applied/ }],
    );
  },
);

/** Every agent's prompt_template is a non-empty file and every overlay_dir a directory (relative to `dir`). */
function filesExist(t: Test, dir: string, agents: Table[]): number {
  let prompts = 0;
  for (const a of agents) {
    const id = agentIdentity(a);
    if (typeof a.prompt_template === 'string') {
      prompts++;
      const path = resolve(dir, a.prompt_template);
      t.ok(existsSync(path) && statSync(path).size > 0, `${id}: prompt_template ${a.prompt_template} exists`);
    }
    if (typeof a.overlay_dir === 'string')
      t.ok(statSync(resolve(dir, a.overlay_dir)).isDirectory(), `${id}: overlay_dir is a directory`);
  }
  return prompts;
}

t.test('gastown, as upstream’s gastown_test.go checks the expanded city with a rig', async (t) => {
  const dir = example('gastown');
  const c = await effectiveConfigOf(
    dir,
    withRig('gastown', '\n[rigs.imports.gastown]\nsource = "packs/gastown"\n'),
    'gastown',
  );
  const agents = byId(c.composed.agents);
  // TestPromptFilesExist, TestOverlayDirsExist, TestAgentNudgeField.
  t.equal(filesExist(t, dir, c.composed.agents), c.composed.agents.length, 'every agent has a prompt');
  t.ok(c.composed.agents.filter((a) => typeof a.nudge === 'string' && a.nudge !== '').length > 0);
  // TestPackDirsPopulated.
  for (const pack of ['maintenance', 'gastown'])
    t.ok(
      c.city.packDirs?.some((d) => d.endsWith(join('packs', pack))),
      `packDirs has packs/${pack}`,
    );
  // TestGlobalFragmentsParsed.
  t.ok(c.city.globalFragments?.includes('command-glossary'));
  // TestCombinedPackParses, TestMaintenancePackParses: the city agents are city-scoped, the rest per rig.
  for (const name of ['mayor', 'deacon', 'boot', 'dog'])
    t.equal(agents.get(`gastown.${name}`)?.dir, undefined, `${name} is a city agent`);
  for (const name of ['witness', 'refinery', 'polecat'])
    t.ok(agents.has(`proj/gastown.${name}`), `${name} is stamped for the rig`);
  // TestPackUsesIsolatedWorkDirs: all six of gastown's own agents.
  t.same(
    Object.fromEntries(
      ['mayor', 'deacon', 'boot', 'proj/witness', 'proj/refinery', 'proj/polecat'].map((n) => {
        const id = n.startsWith('proj/') ? `proj/gastown.${n.slice(5)}` : `gastown.${n}`;
        return [n.replace('proj/', ''), agents.get(id)?.work_dir];
      }),
    ),
    {
      mayor: '.gc/agents/mayor',
      deacon: '.gc/agents/deacon',
      boot: '.gc/agents/boot',
      witness: '.gc/agents/{{.Rig}}/witness',
      refinery: '.gc/worktrees/{{.Rig}}/refinery',
      polecat: '.gc/worktrees/{{.Rig}}/polecats/{{.AgentBase}}',
    },
  );
});

t.test('swarm, as upstream’s swarm_test.go checks it: five prompts, nudges, city scopes', async (t) => {
  const dir = example('swarm');
  const c = await effectiveConfigOf(dir, withRig('swarm', 'includes = ["packs/swarm"]\n'), 'swarm');
  // TestAllPromptTemplatesExist: five prompt files, none empty; TestPackPromptFilesExist.
  t.equal(filesExist(t, dir, c.composed.agents), 5);
  // TestAgentNudgeField.
  t.ok(c.composed.agents.filter((a) => typeof a.nudge === 'string' && a.nudge !== '').length > 0);
  // TestCombinedPackParses: mayor, deacon and dog city-scoped; coder and committer per rig.
  const agents = byId(c.composed.agents);
  for (const name of ['mayor', 'deacon', 'dog']) t.equal(agents.get(name)?.dir, undefined);
  for (const name of ['coder', 'committer']) t.equal(agents.get(`proj/${name}`)?.dir, 'proj');
});
