/**
 * Composition and validation as pure functions: the layering order (builtin, packs, city.toml, patches), how
 * each kind of table merges, what a patch does to each field, and which problems validation names.
 */
import t from 'tap';
import { composeConfig } from '../../machines/config/compose.ts';
import type { ConfigLayers, Table } from '../../machines/config/layers.ts';
import { renderProblem } from '../../machines/config/problems.ts';
import { resolveProvider } from '../../machines/config/resolveProvider.ts';
import { validateConfig } from '../../machines/config/validateConfig.ts';

const builtinProviders = {
  claude: { command: 'claude', ready_delay_ms: 10_000 },
  codex: { command: 'codex' },
};
const layers = (city: Table, packs: ConfigLayers['packs'] = []): ConfigLayers => ({
  builtinProviders,
  packs,
  city,
  cityName: 'demo',
});
const pack = (name: string, doc: Table) => ({ name, file: `packs/${name}/pack.toml`, doc });

t.test('later layers win: an agent replaced whole, a provider merged key by key', async (t) => {
  const c = composeConfig(
    layers(
      {
        agent: [{ name: 'scout', provider: 'codex' }],
        providers: { claude: { args: ['--x'] } },
      },
      [
        pack('a', {
          agent: [{ name: 'scout', provider: 'claude', max_active_sessions: 3 }],
          providers: { claude: { ready_delay_ms: 1 } },
        }),
        pack('b', { agent: [{ name: 'cook', provider: 'claude' }] }),
      ],
    ),
  );
  t.same(
    c.agents,
    [
      { name: 'cook', provider: 'claude' },
      { name: 'scout', provider: 'codex' },
    ],
    "city.toml's scout replaces the pack's whole (no max_active_sessions left)",
  );
  t.same(c.providers.claude, { command: 'claude', ready_delay_ms: 1, args: ['--x'] });
  t.same(c.sources['providers.claude.ready_delay_ms'], {
    origin: 'pack',
    file: 'packs/a/pack.toml',
    pack: 'a',
  });
  t.same(c.sources['providers.claude.command'], { origin: 'default' });
  t.notOk(c.sources['agents.scout.max_active_sessions'], 'no source for a value that is gone');
  t.same(c.sources['workspace.name'], { origin: 'default' });
});

t.test(
  'patches: fields replace, env merges then env_remove, *_append appends, pool maps, _replace replaces',
  async (t) => {
    const c = composeConfig(
      layers({
        agent: [{ name: 'w', dir: 'r', env: { A: '1', B: '2' }, pre_start: ['one'] }],
        rigs: [{ name: 'r', path: 'r', prefix: 'r' }],
        patches: {
          agent: [
            {
              dir: 'r',
              name: 'w',
              env: { C: '3' },
              env_remove: ['A'],
              pre_start_append: ['two'],
              pool: { max: 4, check: 'n' },
              suspended: true,
            },
          ],
          providers: [{ name: 'claude', _replace: true, command: 'claude2' }],
          rigs: [{ name: 'r', prefix: 'p' }],
        },
      }),
    );
    t.same(c.agents[0], {
      name: 'w',
      dir: 'r',
      env: { B: '2', C: '3' },
      pre_start: ['one', 'two'],
      max_active_sessions: 4,
      scale_check: 'n',
      suspended: true,
    });
    t.same(c.providers.claude, { command: 'claude2' }, '_replace drops the builtin keys');
    t.same(c.rigs[0], { name: 'r', path: 'r', prefix: 'p' });
    for (const key of ['env', 'pre_start', 'max_active_sessions', 'suspended'])
      t.equal(c.sources[`agents.r/w.${key}`]?.origin, 'patch', key);
    t.same(c.unmatchedPatches, []);
  },
);

t.test('a provider base chain is flattened, args_append after the inherited args', async (t) => {
  const c = composeConfig(
    layers({ providers: { mine: { base: 'claude', args_append: ['--y'], env: { K: 'v' } } } }),
  );
  t.same(resolveProvider(c, 'mine'), {
    command: 'claude',
    ready_delay_ms: 10_000,
    base: 'claude',
    args: ['--y'],
    env: { K: 'v' },
  });
  t.equal(
    resolveProvider(composeConfig(layers({ providers: { a: { base: 'b' }, b: { base: 'a' } } })), 'a'),
    undefined,
    'a cycle',
  );
});

t.test('validation names each problem with its file and field', async (t) => {
  const city: Table = {
    workspace: { name: 'demo', provider: 'ghost' },
    include: ['extra.toml'],
    agent: [
      { name: 'a', provider: 'claude', min_active_sessions: 3, max_active_sessions: 1 },
      { name: 'b', depends_on: ['c'] },
      { name: 'c', depends_on: ['b'] },
      { name: 'a' },
      { provider: 'claude' },
    ],
    providers: { bare: { prompt_mode: 'shout' } },
    rigs: [{ name: 'r' }, { name: 'r', path: 'x', includes: ['p'] }],
    service: [{ name: 'bad name', kind: 'daemon' }],
    patches: { agent: [{ name: 'ghost' }], rigs: [{ name: 'nowhere' }] },
    wokrspace: {},
  };
  const c = composeConfig(layers(city, [pack('p', { agent: [{ name: 'x', provider: 'ghost' }] })]));
  t.same(
    validateConfig(c, city, [], [pack('p', { agent: [{ name: 'x', provider: 'ghost' }] })]).map(
      renderProblem,
    ),
    [
      'city.toml: wokrspace: unknown field "wokrspace" (did you mean "workspace"?)',
      'city.toml: providers.bare.command: command is required',
      'city.toml: providers.bare.prompt_mode: expected one of arg, flag, none',
      'city.toml: workspace.provider: unknown provider "ghost"',
      'city.toml: agent[3] (a).name: agent a is defined twice',
      'packs/p/pack.toml: agent[0] (x).provider: unknown provider "ghost"',
      'city.toml: agent[4].name: name is required',
      'city.toml: agent (b).depends_on: dependency cycle b → c → b',
      'city.toml: rigs[0].path: path is required',
      'city.toml: rigs[1].name: rig r is defined twice',
      'city.toml: service[0].name: expected [a-zA-Z0-9][a-zA-Z0-9_-]*',
      'city.toml: service[0].kind: expected one of workflow, proxy_process',
      'city.toml: patches.agent[0]: agent ghost is not defined',
      'city.toml: patches.rigs[0]: rig nowhere is not defined',
    ],
  );
});
