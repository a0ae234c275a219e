/**
 * The configuration surface over the real app: every operation of the config, packs, providers, rigs and
 * patches families against a city's real city.toml and file journal. Each answer is validated against the
 * component the served OpenAPI document names; each refused write leaves city.toml byte for byte as it was
 * and records no event.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { docValidator, type DocValidator } from '../helpers/schemaValidator.ts';
import { call, configHarness, type ConfigHarness } from './helpers.ts';

let validator: DocValidator | undefined;
async function v(h: ConfigHarness): Promise<DocValidator> {
  validator ??= docValidator(
    (await h.app.inject({ url: '/openapi.json' })).json<object>(),
    (await h.app.inject({ url: '/v0/schema/events.json' })).json<object>(),
  );
  return validator;
}

/** Asserts the answer's status and that its body is a valid `component`. */
async function valid(
  t: Test,
  h: ConfigHarness,
  r: { status: number; body: unknown },
  status: number,
  component: string,
) {
  t.equal(r.status, status, JSON.stringify(r.body));
  t.same((await v(h)).component(component, r.body), [], `a valid ${component}`);
}

/** Runs `act` and asserts it left city.toml unchanged and recorded no config event. */
async function refused(
  t: Test,
  h: ConfigHarness,
  act: () => Promise<{ status: number; body: { detail?: string; errors?: Array<{ location: string }> } }>,
  status: number,
  detail: RegExp,
  location?: string,
) {
  const before = await h.toml();
  const events = (await h.configEvents()).length;
  const r = await act();
  t.equal(r.status, status, JSON.stringify(r.body));
  t.match(r.body.detail, detail);
  if (location)
    t.ok(
      r.body.errors?.some((e) => e.location === location),
      `errors name ${location}: ${JSON.stringify(r.body.errors)}`,
    );
  t.equal(await h.toml(), before, 'city.toml is unchanged');
  t.equal((await h.configEvents()).length, events, 'no event');
}

t.test('GET /config is the effective config: packs and patches applied, with the index', async (t) => {
  const h = await configHarness(t);
  const r = await call(h, 'GET', '/config');
  await valid(t, h, r, 200, 'ConfigResponse');
  t.equal(r.headers['x-gc-index'], String(h.service.index));
  t.equal(r.headers['x-gc-cache-age-s'], '0');
  t.same(r.body.workspace, { name: 'demo', declared_name: 'demo', provider: 'mock', suspended: false });
  t.same(r.body.agents, [
    { name: 'mayor', provider: 'mock', suspended: false },
    { name: 'worker', dir: 'app', provider: 'fast', suspended: true },
  ]);
  t.same(
    r.body.rigs,
    [{ name: 'app', path: 'app', prefix: 'zz', suspended: false }],
    'the rig patch applied',
  );
  t.equal(r.body.providers.claude.ready_delay_ms, 5, 'the provider patch applied');
  t.same(r.body.providers.fast, { command: 'echo', args: ['hello'] });
  t.same(r.body.patches, { agent_count: 1, provider_count: 1, rig_count: 1 });
});

t.test('GET /config/defaults is the builtin layer alone', async (t) => {
  const h = await configHarness(t);
  const r = await call(h, 'GET', '/config/defaults');
  await valid(t, h, r, 200, 'ConfigResponse');
  t.same(r.body.agents, []);
  t.same(r.body.rigs, []);
  t.same(Object.keys(r.body.providers).sort(), [
    'amp',
    'auggie',
    'claude',
    'codex',
    'copilot',
    'cursor',
    'gemini',
    'mock',
    'omp',
    'opencode',
    'pi',
  ]);
  t.equal(r.body.providers.claude.ready_delay_ms, 10_000, 'no patch in the defaults');
});

t.test('GET /config/explain names the origin of agents, providers and every value', async (t) => {
  const h = await configHarness(t, {
    files: {
      'packs/base/pack.toml':
        '[pack]\nname = "base"\nschema = 1\n\n[[agent]]\nname = "scout"\nprovider = "codex"\n',
    },
    toml: `${'[workspace]\nname = "demo"\nincludes = ["packs/base"]\n'}\n[providers.fast]\ncommand = "echo"\n\n[[agent]]\nname = "mayor"\nprovider = "mock"\n\n[[patches.agent]]\nname = "scout"\nsuspended = true\n\n[[patches.providers]]\nname = "codex"\nready_delay_ms = 1\n`,
  });
  const plain = await call(h, 'GET', '/config/explain');
  t.notOk('sources' in plain.body, 'sources only on opt-in: upstream’s schema is closed');
  const r = await call(h, 'GET', '/config/explain?extras=true');
  await valid(t, h, r, 200, 'ConfigExplainResponse');
  t.same(
    r.body.agents.map((a: { name: string; origin: string; suspended: boolean }) => [
      a.name,
      a.origin,
      a.suspended,
    ]),
    [
      ['scout', 'pack-derived', true],
      ['mayor', 'inline', false],
    ],
  );
  t.equal(r.body.providers.codex.origin, 'builtin+city', 'a patched builtin');
  t.equal(r.body.providers.fast.origin, 'city');
  t.equal(r.body.providers.gemini.origin, 'builtin');
  t.same(r.body.patches, { agents: 1, providers: 1, rigs: 0 });
  const source = (path: string): unknown =>
    (r.body.sources as Array<{ path: string }>).find((s) => s.path === path);
  t.same(source('agents.scout.provider'), {
    path: 'agents.scout.provider',
    origin: 'pack',
    file: 'packs/base/pack.toml',
    pack: 'base',
  });
  t.same(source('agents.scout.suspended'), {
    path: 'agents.scout.suspended',
    origin: 'patch',
    file: 'city.toml',
  });
  t.same(source('agents.mayor.provider'), {
    path: 'agents.mayor.provider',
    origin: 'city',
    file: 'city.toml',
  });
  t.same(source('providers.gemini.command'), { path: 'providers.gemini.command', origin: 'default' });
  t.same(source('providers.codex.ready_delay_ms'), {
    path: 'providers.codex.ready_delay_ms',
    origin: 'patch',
    file: 'city.toml',
  });
  const packs = await call(h, 'GET', '/packs');
  await valid(t, h, packs, 200, 'PackListBody');
  t.same(packs.body, { packs: [{ name: 'base', path: 'packs/base' }] });
});

t.test('GET /config/validate names every problem with file and field', async (t) => {
  const h = await configHarness(t);
  const ok = await call(h, 'GET', '/config/validate');
  await valid(t, h, ok, 200, 'ConfigValidateOutputBody');
  t.same([ok.body.valid, ok.body.errors, ok.body.warnings], [true, [], []]);
  writeFileSync(
    join(h.dir, 'city.toml'),
    '[workspace]\nname = "demo"\n\n[[agent]]\nname = "a"\nprovider = "nope"\n\n[[agent]]\nname = "b"\ndepends_on = ["ghost"]\n\n[[rigs]]\nname = "r"\n\n[workspce]\n',
  );
  const bad = await call(h, 'GET', '/config/validate');
  await valid(t, h, bad, 200, 'ConfigValidateOutputBody');
  t.equal(bad.body.valid, false);
  t.same(bad.body.errors, [
    'city.toml: agent[0] (a).provider: unknown provider "nope"',
    'city.toml: agent[1] (b).depends_on: unknown agent "ghost"',
    'city.toml: rigs[0].path: path is required',
  ]);
  t.same(bad.body.warnings, ['city.toml: workspce: unknown field "workspce" (did you mean "workspace"?)']);
  t.notOk('problems' in bad.body, 'problems only on opt-in: upstream’s schema is closed');
  t.equal((await call(h, 'GET', '/config/validate?extras=true')).body.problems.length, 4);
  writeFileSync(join(h.dir, 'city.toml'), '[workspace]\nname = "demo"\nbroken = \n');
  const syntax = await call(h, 'GET', '/config/validate');
  t.equal(syntax.body.valid, false);
  t.match(syntax.body.errors[0], /^city\.toml: line 3: invalid TOML: /);
});

t.test('providers: list, public list, get, create, change and delete', async (t) => {
  const h = await configHarness(t);
  const list = await call(h, 'GET', '/providers');
  await valid(t, h, list, 200, 'ListBodyProviderResponse');
  t.same(
    list.body.items.map((p: { name: string }) => p.name),
    [
      'claude',
      'codex',
      'gemini',
      'cursor',
      'copilot',
      'amp',
      'opencode',
      'auggie',
      'pi',
      'omp',
      'mock',
      'fast',
    ],
    "upstream's builtins in order, then mock, then the city's",
  );
  t.equal(list.body.total, 12);
  t.same(
    list.body.items.filter((p: { city_level: boolean }) => p.city_level).map((p: { name: string }) => p.name),
    ['claude', 'fast'],
    'the patched builtin and the city provider are city-level',
  );
  const pub = await call(h, 'GET', '/providers/public');
  await valid(t, h, pub, 200, 'ProviderPublicListBody');
  t.notOk(
    pub.body.items.some((p: object) => 'command' in p || 'env' in p),
    'no command or env in the public list',
  );
  t.same(pub.body.items[10], {
    name: 'mock',
    builtin: true,
    city_level: false,
    display_name: 'Mock agent (gc-mock-agent)',
  });

  const created = await call(h, 'POST', '/providers', {
    name: 'slow',
    command: 'sleep',
    args: ['1'],
    env: { A: '1' },
  });
  await valid(t, h, created, 201, 'ProviderCreatedOutputBody');
  t.same(created.body, { status: 'created', provider: 'slow' });
  t.match(await h.toml(), /\[providers\.slow\]\ncommand = "sleep"\nargs = \[ "1" \]/);
  const [event] = (await h.configEvents()).slice(-1);
  t.match(event, {
    type: 'config.changed',
    actor: 'api',
    subject: 'provider/slow',
    payload: { source: 'api', kind: 'provider', op: 'created', target: 'slow', valid: true },
  });
  const got = await call(h, 'GET', '/provider/slow');
  await valid(t, h, got, 200, 'ProviderResponse');
  t.same(got.body, {
    name: 'slow',
    builtin: false,
    city_level: true,
    command: 'sleep',
    args: ['1'],
    env: { A: '1' },
  });
  t.equal(got.headers['x-gc-index'], String(event!.seq), 'the index is the log head after the write');

  await refused(
    t,
    h,
    () => call(h, 'POST', '/providers', { name: 'claude', command: 'x' }),
    409,
    /^conflict: provider claude already exists/,
  );
  await refused(
    t,
    h,
    () => call(h, 'POST', '/providers', { name: 'bare' }),
    422,
    /command is required/,
    'body.command',
  );
  await refused(
    t,
    h,
    () => call(h, 'POST', '/providers', { name: 'x', command: 'y', colour: 'red' }),
    422,
    /./,
  );
  await refused(
    t,
    h,
    () => call(h, 'POST', '/providers', { name: 'bad name', command: 'y' }),
    422,
    /./,
    'body.name',
  );
  await refused(
    t,
    h,
    () => call(h, 'POST', '/providers', { name: 'y', base: 'ghost' }),
    422,
    /unknown base provider "ghost"/,
    'city.toml:providers.y.base',
  );
  await refused(t, h, () => call(h, 'GET', '/provider/ghost'), 404, /^not_found: provider "ghost" not found/);

  const patched = await call(h, 'PATCH', '/provider/codex', {
    ready_delay_ms: 7,
    display_name: 'Codex (ours)',
  });
  t.same([patched.status, patched.body], [200, { status: 'ok' }]);
  const codex = await call(h, 'GET', '/provider/codex');
  t.match(codex.body, {
    name: 'codex',
    builtin: true,
    city_level: true,
    command: 'codex',
    ready_delay_ms: 7,
    display_name: 'Codex (ours)',
  });
  await refused(
    t,
    h,
    () => call(h, 'PATCH', '/provider/ghost', { command: 'x' }),
    404,
    /^not_found: provider "ghost"/,
  );
  await refused(t, h, () => call(h, 'PATCH', '/provider/codex', { ready_delay_ms: -1 }), 422, /./);

  await refused(
    t,
    h,
    () => call(h, 'DELETE', '/provider/mock'),
    409,
    /^conflict: provider mock is builtin and cannot be deleted/,
  );
  await refused(
    t,
    h,
    () => call(h, 'DELETE', '/provider/fast'),
    422,
    /unknown provider "fast"/,
    'city.toml:agent[1] (app/worker).provider',
  );
  await refused(t, h, () => call(h, 'DELETE', '/provider/ghost'), 404, /^not_found:/);
  const undo = await call(h, 'DELETE', '/provider/codex');
  t.equal(undo.status, 200, 'deleting a builtin’s override restores the builtin');
  t.match((await call(h, 'GET', '/provider/codex')).body, { city_level: false, ready_delay_ms: 3000 });
  t.equal((await call(h, 'DELETE', '/provider/slow')).status, 200);
  t.equal((await call(h, 'GET', '/provider/slow')).status, 404);
});

t.test('rigs: list with counts and git status, create, get, change, actions, delete', async (t) => {
  const h = await configHarness(t);
  const list = await call(h, 'GET', '/rigs');
  await valid(t, h, list, 200, 'ListBodyRigResponse');
  t.same(list.body, {
    items: [{ name: 'app', path: 'app', prefix: 'zz', suspended: false, agent_count: 1, running_count: 0 }],
    total: 1,
  });

  const repo = join(h.dir, 'lib');
  mkdirSync(repo);
  execFileSync('git', ['init', '--quiet', '-b', 'trunk', repo]);
  writeFileSync(join(repo, 'a.txt'), 'x');
  const created = await call(h, 'POST', '/rigs', { name: 'lib', path: 'lib', default_branch: 'trunk' });
  await valid(t, h, created, 201, 'RigCreatedOutputBody');
  t.same(created.body, { status: 'created', rig: 'lib' });
  t.match((await h.configEvents()).at(-1), { subject: 'rig/lib', payload: { kind: 'rig', op: 'created' } });
  const withGit = await call(h, 'GET', '/rigs?git=true');
  await valid(t, h, withGit, 200, 'ListBodyRigResponse');
  t.same(withGit.body.items[1].git, { branch: 'trunk', clean: false, changed_files: 1, ahead: 0, behind: 0 });
  t.equal(withGit.body.partial, true, 'a rig that is not a git work tree makes the list partial');
  t.match(withGit.body.partial_errors, [/^rig app: git status: /]);
  const one = await call(h, 'GET', '/rig/lib');
  await valid(t, h, one, 200, 'RigResponse');
  t.same(one.body, {
    name: 'lib',
    path: 'lib',
    default_branch: 'trunk',
    suspended: false,
    agent_count: 0,
    running_count: 0,
  });

  await refused(
    t,
    h,
    () => call(h, 'POST', '/rigs', { name: 'lib', path: 'x' }),
    409,
    /^conflict: rig lib already exists/,
  );
  await refused(t, h, () => call(h, 'POST', '/rigs', { name: 'nopath' }), 422, /./, 'body.path');
  await refused(t, h, () => call(h, 'GET', '/rig/ghost'), 404, /^not_found: rig "ghost" not found/);
  await refused(t, h, () => call(h, 'PATCH', '/rig/ghost', { prefix: 'g' }), 404, /^not_found:/);
  await refused(t, h, () => call(h, 'PATCH', '/rig/lib', { suspended: 'yes' }), 422, /./, 'body.suspended');

  t.same((await call(h, 'PATCH', '/rig/lib', { prefix: 'lb' })).body, { status: 'ok' });
  t.equal((await call(h, 'GET', '/rig/lib')).body.prefix, 'lb');

  const suspend = await call(h, 'POST', '/rig/lib/suspend');
  await valid(t, h, suspend, 200, 'RigActionBody');
  t.same(suspend.body, { action: 'suspend', rig: 'lib', status: 'ok' });
  t.equal((await call(h, 'GET', '/rig/lib')).body.suspended, true);
  await call(h, 'POST', '/rig/lib/resume');
  t.equal((await call(h, 'GET', '/rig/lib')).body.suspended, false);
  const restart = await call(h, 'POST', '/rig/app/restart');
  await valid(t, h, restart, 200, 'RigActionBody');
  t.same(restart.body, { action: 'restart', rig: 'app', status: 'ok', killed: [], failed: [] });
  await refused(t, h, () => call(h, 'POST', '/rig/app/explode'), 422, /./, 'path.action');
  await refused(t, h, () => call(h, 'POST', '/rig/ghost/suspend'), 404, /^not_found:/);

  t.same((await call(h, 'DELETE', '/rig/lib')).body, { status: 'ok' });
  await refused(t, h, () => call(h, 'DELETE', '/rig/lib'), 404, /^not_found: rig "lib" not found/);
});

t.test('a suspended rig holds its agents in the effective config', async (t) => {
  const h = await configHarness(t, {
    toml: '[workspace]\nname = "d"\n\n[[agent]]\nname = "w"\ndir = "r"\nprovider = "mock"\n\n[[rigs]]\nname = "r"\npath = "r"\n',
  });
  t.equal((await call(h, 'GET', '/config')).body.agents[0].suspended, false);
  await call(h, 'POST', '/rig/r/suspend');
  t.equal((await call(h, 'GET', '/config')).body.agents[0].suspended, true);
});

t.test('agent patches: list, get in both forms, set, merge and delete', async (t) => {
  const h = await configHarness(t);
  const list = await call(h, 'GET', '/patches/agents');
  await valid(t, h, list, 200, 'ListBodyAgentPatch');
  t.equal(list.body.total, 1);
  t.match(list.body.items[0], {
    Name: 'worker',
    Dir: 'app',
    Suspended: true,
    Provider: null,
    Env: {},
    Pool: { Max: null },
  });
  const one = await call(h, 'GET', '/patches/agent/app/worker');
  await valid(t, h, one, 200, 'AgentPatch');
  t.equal(one.headers['x-gc-index'], String(h.service.index));
  await refused(
    t,
    h,
    () => call(h, 'GET', '/patches/agent/worker'),
    404,
    /^not_found: agent patch "worker" not found/,
  );

  const set = await call(h, 'PUT', '/patches/agents', { name: 'mayor', suspended: true, env: { A: '1' } });
  await valid(t, h, set, 200, 'PatchOKResponseBody');
  t.same(set.body, { status: 'ok', agent_patch: 'mayor' });
  await call(h, 'PUT', '/patches/agents', { name: 'mayor', env: { B: '2' }, work_dir: '/tmp' });
  t.match((await call(h, 'GET', '/patches/agent/mayor')).body, {
    Name: 'mayor',
    Dir: '',
    Suspended: true,
    WorkDir: '/tmp',
    Env: { A: '1', B: '2' },
  });
  t.equal((await call(h, 'GET', '/config')).body.agents[0].suspended, true, 'the patch applies to the agent');
  t.match((await h.configEvents()).at(-1), {
    subject: 'patches/agent/mayor',
    payload: { kind: 'agent_patch', op: 'updated' },
  });

  await refused(t, h, () => call(h, 'PUT', '/patches/agents', { suspended: true }), 422, /name/, 'body.name');
  await refused(
    t,
    h,
    () => call(h, 'PUT', '/patches/agents', { name: 'ghost', suspended: true }),
    422,
    /agent ghost is not defined/,
    'city.toml:patches.agent[2]',
  );
  await refused(t, h, () => call(h, 'PUT', '/patches/agents', { name: 'mayor', pool: {} }), 422, /./);

  const del = await call(h, 'DELETE', '/patches/agent/mayor');
  await valid(t, h, del, 200, 'PatchDeletedResponseBody');
  t.same(del.body, { status: 'deleted', agent_patch: 'mayor' });
  t.same((await call(h, 'DELETE', '/patches/agent/app/worker')).body, {
    status: 'deleted',
    agent_patch: 'app/worker',
  });
  t.equal(
    (await call(h, 'GET', '/config')).body.agents[1].suspended,
    false,
    'the agent is as its layer defines it',
  );
  await refused(t, h, () => call(h, 'DELETE', '/patches/agent/mayor'), 404, /^not_found:/);
  t.same((await call(h, 'GET', '/patches/agents')).body, { items: [], total: 0 });
  t.notMatch(await h.toml(), /patches\.agent/, 'no empty [[patches.agent]] is left');
});

t.test('provider and rig patches: list, get, set and delete', async (t) => {
  const h = await configHarness(t);
  const providers = await call(h, 'GET', '/patches/providers');
  await valid(t, h, providers, 200, 'ListBodyProviderPatch');
  t.match(providers.body.items, [
    { Name: 'claude', ReadyDelayMs: 5, Command: null, Replace: false, Env: {} },
  ]);
  const set = await call(h, 'PUT', '/patches/providers', {
    name: 'codex',
    command: 'codex2',
    args: ['--fast'],
  });
  t.same(set.body, { status: 'ok', provider_patch: 'codex' });
  const codex = await call(h, 'GET', '/patches/provider/codex');
  await valid(t, h, codex, 200, 'ProviderPatch');
  t.match(codex.body, { Name: 'codex', Command: 'codex2', Args: ['--fast'] });
  t.match((await call(h, 'GET', '/provider/codex')).body, {
    command: 'codex2',
    args: ['--fast'],
    city_level: true,
  });
  await refused(
    t,
    h,
    () => call(h, 'PUT', '/patches/providers', { name: 'ghost', command: 'x' }),
    422,
    /provider ghost is not defined/,
  );
  t.same((await call(h, 'DELETE', '/patches/provider/codex')).body, {
    status: 'deleted',
    provider_patch: 'codex',
  });
  await refused(t, h, () => call(h, 'GET', '/patches/provider/codex'), 404, /^not_found:/);
  await refused(t, h, () => call(h, 'DELETE', '/patches/provider/codex'), 404, /^not_found:/);

  const rigs = await call(h, 'GET', '/patches/rigs');
  await valid(t, h, rigs, 200, 'ListBodyRigPatch');
  t.match(rigs.body.items, [{ Name: 'app', Prefix: 'zz', Path: null, Suspended: null, FormulaVars: {} }]);
  t.same((await call(h, 'PUT', '/patches/rigs', { name: 'app', suspended: true })).body, {
    status: 'ok',
    rig_patch: 'app',
  });
  const app = await call(h, 'GET', '/patches/rig/app');
  await valid(t, h, app, 200, 'RigPatch');
  t.match(app.body, { Name: 'app', Prefix: 'zz', Suspended: true });
  t.equal((await call(h, 'GET', '/rig/app')).body.suspended, true);
  await refused(
    t,
    h,
    () => call(h, 'PUT', '/patches/rigs', { name: 'ghost', prefix: 'g' }),
    422,
    /rig ghost is not defined/,
  );
  t.same((await call(h, 'DELETE', '/patches/rig/app')).body, { status: 'deleted', rig_patch: 'app' });
  t.same((await call(h, 'GET', '/rig/app')).body.prefix, 'ap', 'the rig is as city.toml defines it');
});

t.test('mutations need X-GC-Request and a running city', async (t) => {
  const h = await configHarness(t);
  const res = await h.app.inject({
    method: 'POST',
    url: `${h.base}/rigs`,
    payload: { name: 'x', path: 'x' },
  });
  t.equal(res.statusCode, 403);
  t.equal((await h.app.inject({ url: '/v0/city/nowhere/config' })).statusCode, 404);
});

t.test('GET /rigs?index= waits for the next change of the city log', async (t) => {
  const h = await configHarness(t);
  const head = (await call(h, 'GET', '/rigs')).headers['x-gc-index'] as string;
  let answered = false;
  const waiting = call(h, 'GET', `/rigs?index=${head}&wait=20s`).then((r) => {
    answered = true;
    return r;
  });
  // Held while nothing happens: a read answered meanwhile does not release it; the write below does.
  t.equal((await call(h, 'GET', '/config')).status, 200);
  t.equal(answered, false, 'still held after another request was answered');
  t.equal((await call(h, 'POST', '/rigs', { name: 'late', path: 'l' })).status, 201);
  const r = await waiting;
  t.equal(r.status, 200);
  t.ok(
    (r.body.items as Array<{ name: string }>).some((x) => x.name === 'late'),
    'the answer includes the change it waited for',
  );
  t.ok(Number(r.headers['x-gc-index']) > Number(head));
});
