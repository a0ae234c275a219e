/**
 * `gc config explain` (the built gc) on upstream's gastown example with a rig: every effective setting of
 * every agent names the file it came from: a discovered agent's `agents/<name>/agent.toml`, its prompt
 * file, a pack patch's `pack.toml`, a pack's `[global]` session_live.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { configHarness } from '../config/helpers.ts';
import { isolatedEnv, runGc } from './helpers/gc.ts';

const GASTOWN = join(import.meta.dirname, '..', 'fixtures', 'upstream', 'gascity', 'examples', 'gastown');

/** Every text file under `dir`, by its path relative to `root`. */
function filesOf(root: string, dir = root): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) Object.assign(out, filesOf(root, path));
    else out[relative(root, path)] = readFileSync(path, 'utf8');
  }
  return out;
}

t.test('gc config explain names the file of every agent setting of gastown', async (t) => {
  const toml =
    readFileSync(join(GASTOWN, 'city.toml'), 'utf8') +
    '\n[[rigs]]\nname = "proj"\npath = "proj"\n\n[rigs.imports.gastown]\nsource = "packs/gastown"\n';
  const files = filesOf(GASTOWN);
  delete files['city.toml'];
  const h = await configHarness(t, { toml, files });
  const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
  const env = isolatedEnv(h.dir, { GC_API: url, GC_CITY: h.name });
  const out = await runGc(['config', 'explain', '--prefix', 'agents.'], { env });
  t.equal(out.code, 0, out.stderr);
  const rows = out.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(/\s{2,}/));
  t.ok(rows.length > 40, `${rows.length} agent settings`);
  t.same(
    rows.filter((r) => r.length !== 3 || r[2] === '-' || r[2] === ''),
    [],
    'every setting names a file',
  );
  const at = (path: string) => rows.find((r) => r[0] === path);
  t.same(at('agents.proj/gastown.polecat.work_dir'), [
    'agents.proj/gastown.polecat.work_dir',
    'pack:gastown',
    'packs/gastown/agents/polecat/agent.toml',
  ]);
  t.same(at('agents.proj/gastown.polecat.pre_start'), [
    'agents.proj/gastown.polecat.pre_start',
    'pack:gastown',
    'packs/gastown/agents/polecat/agent.toml',
  ]);
  t.match(at('agents.proj/gastown.polecat.prompt_template'), [
    String,
    'pack:gastown',
    /^packs\/gastown\/agents\/polecat\//,
  ]);
  t.match(at('agents.gastown.dog.work_dir'), [String, /^(pack:gastown|patch)$/, 'packs/gastown/pack.toml']);
  t.match(at('agents.gastown.mayor.session_live'), [String, 'pack:gastown', 'packs/gastown/pack.toml']);
});
