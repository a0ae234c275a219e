/**
 * Pack composition as upstream's loader does it: packs a pack includes or imports are followed
 * transitively (a cycle is an error naming the chain), `transitive = false` and `export` change what an
 * import brings and under which binding, `agents/<name>/` directories are agents unless a `[[agent]]`
 * of that name shadows them, a `fallback` agent yields, and the public gascity-packs load with warnings
 * only.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import { effectiveConfigOf } from '../../actors/config/effectiveConfig.ts';
import { agentIdentity } from '../../machines/config/layers.ts';

function city(t: { teardown(fn: () => void): void }, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gc-packtree-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
const pack = (name: string, rest = '') => `[pack]\nname = "${name}"\nschema = 2\n${rest}`;
const CITY = '[workspace]\nname = "c"\nprovider = "claude"\n';

t.test('an import cycle is an error naming the chain, in the file that closes it', async (t) => {
  const dir = city(t, {
    'packs/a/pack.toml': pack('a', '[imports.b]\nsource = "../b"\n'),
    'packs/b/pack.toml': pack('b', '[imports.c]\nsource = "../c"\n'),
    'packs/c/pack.toml': pack('c', '[imports.a]\nsource = "//packs/a"\n'),
  });
  const c = await effectiveConfigOf(dir, `${CITY}[imports.a]\nsource = "packs/a"\n`);
  t.match(
    c.problems.filter((p) => p.severity === 'error'),
    [
      {
        file: 'packs/c/pack.toml',
        field: 'imports.a.source',
        message: 'pack cycle: packs/a → packs/b → packs/c → packs/a',
      },
    ],
  );
});

t.test('transitive imports, export, transitive = false and a diamond', async (t) => {
  const dir = city(t, {
    'packs/top/pack.toml': pack(
      'top',
      '[imports.mid]\nsource = "../mid"\n\n[imports.flat]\nsource = "../mid"\ntransitive = false\n' +
        '\n[imports.ex]\nsource = "../exporter"\nexport = true\n',
    ),
    'packs/mid/pack.toml': pack('mid', '[imports.deep]\nsource = "../deep"\n'),
    'packs/mid/agents/middle/agent.toml': 'scope = "city"\n',
    'packs/deep/pack.toml': pack('deep'),
    'packs/deep/agents/bottom/prompt.template.md': 'hi',
    'packs/exporter/pack.toml': pack('exporter', '[imports.deep]\nsource = "../deep"\n'),
  });
  // Included (no binding at the top) so nested bindings stay visible.
  const c = await effectiveConfigOf(dir, `${CITY}includes = ["packs/top"]\n`);
  t.same(
    c.problems.filter((p) => p.severity === 'error'),
    [],
  );
  t.same(c.composed.agents.map(agentIdentity).sort(), [
    'deep.bottom', // mid's import keeps its own binding (no export)
    'ex.bottom', // exporter re-stamped with its binding by export
    'flat.middle', // transitive = false: mid's own agent only
    'mid.middle',
  ]);
});

t.test(
  'agents/<name>/ discovery: shadowed by [[agent]], fallback yields, pack patch missing target',
  async (t) => {
    const dir = city(t, {
      'packs/p/pack.toml': pack(
        'p',
        '[[agent]]\nname = "mayor"\nprovider = "claude"\n\n[imports.base]\nsource = "../base"\n\n' +
          '[[patches.agent]]\nname = "mayor"\nnudge = "woof"\n\n[[patches.agent]]\nname = "cat"\nnudge = "x"\n',
      ),
      'packs/p/agents/mayor/prompt.template.md': 'ignored: the [[agent]] table wins',
      'packs/p/agents/dog/agent.toml': 'max_active_sessions = 2\n',
      'packs/p/agents/_hidden/agent.toml': '',
      'packs/base/pack.toml': pack('base'),
      'packs/base/agents/dog/agent.toml': 'fallback = true\nmax_active_sessions = 9\n',
    });
    const c = await effectiveConfigOf(dir, `${CITY}[imports.p]\nsource = "packs/p"\n`);
    const agents = new Map(c.composed.agents.map((a) => [agentIdentity(a), a]));
    t.same([...agents.keys()].sort(), ['p.dog', 'p.mayor']);
    t.equal(agents.get('p.mayor')!.prompt_template, undefined, 'the shadowed directory is ignored whole');
    t.equal(agents.get('p.mayor')!.nudge, 'woof', "the pack's patch applies to its merged list");
    t.match(
      agents.get('p.dog'),
      { max_active_sessions: 2 },
      'the non-fallback dog wins over the imported fallback one',
    );
    t.match(
      c.problems.filter((p) => p.severity === 'error'),
      [{ file: 'packs/p/pack.toml', field: 'patches.agent[1]', message: 'agent "cat" not found in pack' }],
    );
    t.match(c.composed.sources['agents.p.dog.max_active_sessions'], {
      file: 'packs/p/agents/dog/agent.toml',
    });
  },
);

t.test('every public gascity-pack loads with no error, its unsupported parts warned', async (t) => {
  const root = join(import.meta.dirname, '..', 'fixtures', 'upstream', 'gascity-packs');
  const packs = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => (['flywheel', 'jeffrey'].includes(e.name) ? [`${e.name}/all`] : [e.name]));
  t.ok(packs.length >= 8);
  const compatibility = readFileSync(
    join(import.meta.dirname, '..', '..', 'docs', 'compatibility.md'),
    'utf8',
  );
  for (const p of packs) {
    const dir = city(t, {});
    const c = await effectiveConfigOf(dir, `${CITY}[imports.x]\nsource = "${join(root, p)}"\n`);
    t.same(
      c.problems.filter((q) => q.severity === 'error'),
      [],
      `${p} loads without error`,
    );
    for (const w of c.problems.filter((q) => q.severity === 'warning')) {
      t.ok(w.file && w.field, `${p}: the warning names file and key (${w.file} ${w.field})`);
      t.ok(compatibility.includes(`\`${w.field}\``), `${p}: ${w.field} is listed in docs/compatibility.md`);
    }
    if (p === 'discord') {
      t.same(
        c.composed.services.map((s) => s.name),
        ['discord-interactions', 'discord-admin', 'discord-gateway'],
      );
      t.match(c.problems, [{ severity: 'warning', field: 'commands/', message: /not served/ }]);
    }
  }
});
