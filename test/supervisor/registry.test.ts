import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CityRegistry } from '../../actors/supervisor/registry.ts';

const home = () => mkdtempSync(join(tmpdir(), 'gc-registry-'));

t.test('the registry survives a reload and is written as upstream cities.toml', async (t) => {
  const dir = home();
  const reg = await CityRegistry.load(dir);
  t.same(reg.list(), [], 'an absent file is an empty registry');
  await reg.add({ name: 'beta', path: '/c/beta' });
  await reg.add({ name: 'alpha', path: '/c/alpha' });
  await reg.remove('beta');
  await reg.remove('nobody');
  const text = readFileSync(join(dir, 'cities.toml'), 'utf8');
  t.match(text, /\[\[cities\]\]\s*\nname = "alpha"\npath = "\/c\/alpha"/);
  const again = await CityRegistry.load(dir);
  t.same(again.list(), [{ name: 'alpha', path: '/c/alpha' }]);
  t.same(again.byPath('/c/alpha'), { name: 'alpha', path: '/c/alpha' });
  t.same(readdirSync(dir), ['cities.toml'], 'no temp files are left behind');
});

t.test('concurrent changes are all kept', async (t) => {
  const dir = home();
  const reg = await CityRegistry.load(dir);
  await Promise.all(Array.from({ length: 30 }, (_, i) => reg.add({ name: `c${i}`, path: `/c/c${i}` })));
  t.equal((await CityRegistry.load(dir)).list().length, 30);
});

t.test('a failed write leaves the registry as it was', async (t) => {
  const dir = home();
  const reg = await CityRegistry.load(dir);
  await reg.add({ name: 'alpha', path: '/c/alpha' });
  // A directory where the file should be: the rename fails.
  const blocked = home();
  await mkdir(join(blocked, 'cities.toml'));
  const broken = await CityRegistry.load(dir);
  Object.defineProperty(broken, 'file', { value: join(blocked, 'cities.toml') });
  await t.rejects(broken.add({ name: 'beta', path: '/c/beta' }));
  t.same(broken.list(), [{ name: 'alpha', path: '/c/alpha' }]);
});

t.test('entries with an invalid name or a relative path are skipped on load', async (t) => {
  const dir = home();
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    join(dir, 'cities.toml'),
    '[[cities]]\nname = "ok"\npath = "/c/ok"\n[[cities]]\nname = "-bad"\npath = "/c/x"\n[[cities]]\nname = "rel"\npath = "c/rel"\n',
  );
  t.same((await CityRegistry.load(dir)).list(), [{ name: 'ok', path: '/c/ok' }]);
});
