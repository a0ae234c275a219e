/**
 * Packs end to end: a real supervisor over HTTP. A city's `[packs.base]` names a local git repository at a
 * tag; when the city starts (its `materializing_packs` phase) the pack is cloned into
 * `.gc/cache/packs/base` at that tag, its agents and providers join the effective config under city.toml,
 * and a patch in city.toml overrides the pack's agent. A pack that cannot be fetched fails the start.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { beadStoreService } from '../../actors/beads/index.ts';
import { linkedConfigService } from '../../actors/supervisor/linkedConfigService.ts';
import { eventually, fakeHost, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe' });

t.test('a [packs.<name>] git source is fetched at its ref when the city starts', async (t) => {
  const first = await startTestSupervisor(t, { tickMs: 200 });
  const services = [beadStoreService, linkedConfigService({ pollMs: 0 })];
  await first.close();
  const start = () =>
    startTestSupervisor(t, {
      tickMs: 200,
      root: first.root,
      options: { services, host: fakeHost(first.home, { bins: ['sh', 'node'] }) },
    });

  const repo = join(first.root, 'pack-repo');
  mkdirSync(repo, { recursive: true });
  git(repo, 'init', '--quiet', '-b', 'main');
  git(repo, 'config', 'user.email', 't@example.com');
  git(repo, 'config', 'user.name', 't');
  const pack = (agent: string) =>
    `[pack]\nname = "base"\nschema = 1\n\n[providers.packcli]\ncommand = "echo"\n\n[[agent]]\nname = "${agent}"\nprovider = "packcli"\n`;
  writeFileSync(join(repo, 'pack.toml'), pack('scout'));
  git(repo, 'add', '.');
  git(repo, 'commit', '--quiet', '-m', 'v1');
  git(repo, 'tag', 'v1');
  writeFileSync(join(repo, 'pack.toml'), pack('later'));
  git(repo, 'commit', '--quiet', '-am', 'v2');

  let s = await start();
  const dir = join(s.home, 'packed');
  const created = await s.call('POST', '/v0/city', { dir, provider: 'mock' });
  t.equal((await waitForTerminal(s.log, created.body.request_id, 20_000)).type, 'request.result.city.create');
  await s.close();
  appendFileSync(
    join(dir, 'city.toml'),
    `\n[packs.base]\nsource = ${JSON.stringify(repo)}\nref = "v1"\n\n[[patches.agent]]\nname = "scout"\nsuspended = true\n`,
  );
  s = await start();
  const base = '/v0/city/packed';
  await eventually(async () => (await s.call('GET', `${base}/packs`)).status === 200, 20_000);

  t.ok(existsSync(join(dir, '.gc', 'cache', 'packs', 'base', 'pack.toml')), 'cloned into the city cache');
  t.same((await s.call('GET', `${base}/packs`)).body, { packs: [{ name: 'base', source: repo, ref: 'v1' }] });
  const explain = (await s.call('GET', `${base}/config/explain?extras=true`)).body;
  t.same(
    explain.agents.map((a: { name: string; origin: string; suspended: boolean }) => [
      a.name,
      a.origin,
      a.suspended,
    ]),
    [['scout', 'pack-derived', true]],
    "the tag's agent, patched by city.toml",
  );
  t.equal(explain.providers.packcli.origin, 'city');
  t.match(
    explain.sources.find((x: { path: string }) => x.path === 'agents.scout.provider'),
    { origin: 'pack', pack: 'base', file: '.gc/cache/packs/base/pack.toml' },
  );
  await s.close();

  // A pack that cannot be fetched fails the start, naming the pack.
  const other = join(s.home, 'broken');
  s = await start();
  const made = await s.call('POST', '/v0/city', { dir: other, provider: 'mock' });
  await waitForTerminal(s.log, made.body.request_id, 20_000);
  await s.close();
  appendFileSync(
    join(other, 'city.toml'),
    `\n[packs.gone]\nsource = ${JSON.stringify(join(first.root, 'nowhere'))}\n`,
  );
  s = await start();
  const broken = async () =>
    ((await s.call('GET', '/v0/cities')).body.items as Array<{ name: string; error?: string }>).find(
      (c) => c.name === 'broken',
    );
  await eventually(async () => (await broken())?.error !== undefined, 20_000);
  t.match((await broken())?.error, /pack gone: cannot fetch/, 'the failed start names the pack');
});
