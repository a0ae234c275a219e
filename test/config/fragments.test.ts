/**
 * `include = [...]` fragments of city.toml: merged into the root as upstream does (agents, rigs and services
 * appended, a name defined twice is an error; providers and the workspace key by key; other sections
 * replaced whole; no nested includes), read from disk relative to the city, and credited to their own file.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { effectiveConfigOf } from '../../actors/config/effectiveConfig.ts';
import { explainView } from '../../actors/config/configViews.ts';
import { mergeFragments } from '../../machines/config/fragments.ts';

t.test('mergeFragments follows upstream: append, merge key by key, replace, no nesting', async (t) => {
  const root = {
    include: ['a.toml'],
    workspace: { name: 'c', provider: 'mock' },
    providers: { p: { command: 'x', args: ['1'] } },
    agent: [{ name: 'mayor' }],
    rigs: [{ name: 'r1', path: '/r1' }],
    daemon: { patrol_interval: '30s' },
    session_sleep: { interactive_resume: '5m' },
    patches: { agent: [{ name: 'mayor', suspended: true }] },
  };
  const { doc, problems } = mergeFragments(root, [
    {
      file: 'frags/a.toml',
      doc: {
        workspace: { max_active_sessions: 4 },
        providers: { p: { command: 'y' }, q: { command: 'z' } },
        agent: [{ name: 'scout' }, { name: 'mayor' }, { name: 'w', dir: 'r1' }],
        rigs: [{ name: 'r2', path: '/r2' }],
        daemon: { max_restarts: 2 },
        session_sleep: { noninteractive: 'off' },
        patches: { agent: [{ name: 'scout', suspended: true }] },
        include: ['b.toml'],
        bogus: 1,
      },
    },
  ]);
  t.same(doc.workspace, { name: 'c', provider: 'mock', max_active_sessions: 4 });
  t.same(
    doc.providers,
    { p: { command: 'y', args: ['1'] }, q: { command: 'z' } },
    'providers merge key by key',
  );
  t.same(
    (doc.agent as Array<{ name: string }>).map((a) => a.name),
    ['mayor', 'scout', 'mayor', 'w'],
    'agents are appended',
  );
  t.same(
    (doc.rigs as Array<{ name: string }>).map((r) => r.name),
    ['r1', 'r2'],
  );
  t.same(doc.daemon, { max_restarts: 2 }, 'a section the fragment defines replaces the root one');
  t.same(doc.session_sleep, { interactive_resume: '5m', noninteractive: 'off' });
  t.equal((doc.patches as { agent: unknown[] }).agent.length, 2, 'patches accumulate');
  t.same(doc.include, ['a.toml'], 'the root keeps its own include list');
  t.notOk('bogus' in doc, 'an unknown key stays out of the root');
  t.same(
    problems.map((p) => [p.severity, p.file, p.field]),
    [
      ['warning', 'frags/a.toml', 'bogus'],
      ['error', 'frags/a.toml', 'include'],
      ['error', 'frags/a.toml', 'agent[1]'],
    ],
  );
  t.match(problems[2]!.message, /agent mayor is already defined in city\.toml/);
});

t.test('fragments are read from disk, compose into the effective config and name their file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-frag-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'conf', 'prompts'), { recursive: true });
  writeFileSync(
    join(dir, 'conf', 'agents.toml'),
    '[providers.fast]\ncommand = "echo"\n\n[[agent]]\nname = "scout"\nprovider = "fast"\nprompt_template = "prompts/scout.md"\n',
  );
  writeFileSync(join(dir, 'root.toml'), '[[agent]]\nname = "rooted"\n');
  const text =
    'include = ["conf/agents.toml", "//root.toml", "missing.toml", "https://example.com/x.toml"]\n\n' +
    '[workspace]\nname = "frag"\nprovider = "mock"\n\n[[agent]]\nname = "mayor"\n';
  const c = await effectiveConfigOf(dir, text, 'frag');
  t.same(
    c.composed.agents.map((a) => a.name),
    ['mayor', 'scout', 'rooted'],
  );
  const scout = c.composed.agents.find((a) => a.name === 'scout')!;
  t.equal(scout.prompt_template, 'conf/prompts/scout.md', "a fragment agent's paths are made city-relative");
  t.equal(c.composed.providers.fast?.command, 'echo');
  t.match(c.composed.sources['agents.scout.provider'], { origin: 'city', file: 'conf/agents.toml' });
  t.match(c.composed.sources['agents.mayor.name'], { origin: 'city', file: 'city.toml' });
  t.match(
    c.problems.map((p) => [p.severity, p.field, p.message]),
    [
      ['error', 'include[2]', /no fragment at missing\.toml/],
      ['warning', 'include[3]', /remote fragments are not fetched/],
    ],
  );
  t.same(c.raw.agent, [{ name: 'mayor' }], 'the raw document (what the writer edits) is city.toml alone');
  const explained = (explainView(c).agents ?? []).map((a) => [a.name, a.origin]);
  t.same(explained, [
    ['mayor', 'inline'],
    ['scout', 'inline'],
    ['rooted', 'inline'],
  ]);

  writeFileSync(join(dir, 'conf', 'bad.toml'), '[[agent]\nname = ');
  const bad = await effectiveConfigOf(dir, 'include = ["conf/bad.toml"]\n[workspace]\nname = "frag"\n');
  t.match(bad.problems, [{ severity: 'error', file: 'conf/bad.toml', message: /invalid TOML/ }]);
});

t.test('a rig includes a pack: its agents are stamped for the rig, overridden by the rig', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-rigpack-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'packs', 'crew'), { recursive: true });
  writeFileSync(
    join(dir, 'packs', 'crew', 'pack.toml'),
    '[pack]\nname = "crew"\nschema = 1\n\n[providers.crewcli]\ncommand = "echo"\n\n' +
      '[[agent]]\nname = "polecat"\nprovider = "crewcli"\nprompt_template = "p.md"\n\n' +
      '[[agent]]\nname = "deacon"\nscope = "city"\n\n[[agent]]\nname = "witness"\nscope = "rig"\n',
  );
  const text =
    '[workspace]\nname = "rp"\nprovider = "mock"\n\n' +
    '[[rigs]]\nname = "api"\npath = "/src/api"\nincludes = ["packs/crew"]\n\n' +
    '[[rigs.overrides]]\nagent = "polecat"\nsuspended = true\n\n' +
    '[[rigs.overrides]]\nagent = "ghost"\nsuspended = true\n\n' +
    '[[rigs]]\nname = "web"\npath = "/src/web"\nincludes = ["packs/crew", "https://example.com/p"]\n';
  const c = await effectiveConfigOf(dir, text, 'rp');
  t.same(
    c.composed.agents.map((a) => `${String(a.dir)}/${String(a.name)}`).sort(),
    ['api/polecat', 'api/witness', 'web/polecat', 'web/witness'],
    'non-city-scoped agents, once per rig',
  );
  const api = c.composed.agents.find((a) => a.dir === 'api' && a.name === 'polecat')!;
  const web = c.composed.agents.find((a) => a.dir === 'web' && a.name === 'polecat')!;
  t.equal(api.suspended, true, "the rig's override applies to its own stamp");
  t.equal(web.suspended, undefined, "and not to another rig's");
  t.equal(api.prompt_template, 'packs/crew/p.md');
  t.equal(c.composed.providers.crewcli?.command, 'echo', "the pack's provider is added");
  t.match(c.composed.sources['agents.api/polecat.provider'], { origin: 'pack', pack: 'crew' });
  t.match(c.problems, [
    { severity: 'warning', field: 'rigs[1].includes[1]', message: /remote includes are not fetched/ },
  ]);
  t.ok(
    c.problems.some((p) => p.severity === 'error' && p.field === 'rigs[0].overrides[1]'),
    'an override without a stamped target is an error',
  );
});
