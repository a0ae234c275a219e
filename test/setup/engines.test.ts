import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../cli/helpers/gc.ts';

/**
 * The Node versions the project promises (package.json `engines.node`, quoted by the README) must be
 * versions every installed package accepts: otherwise `npm ci` warns EBADENGINE on a Node the README names,
 * or worse, a dependency uses what that Node lacks. semver is npm's own range arithmetic (already installed
 * as a dependency of fastify and oclif).
 */

interface Semver {
  subset(sub: string, dom: string): boolean;
  satisfies(version: string, range: string): boolean;
}
const semver = createRequire(import.meta.url)('semver') as Semver;

interface LockEntry {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}

const json = async <T>(name: string): Promise<T> => JSON.parse(await readFile(join(ROOT, name), 'utf8')) as T;

t.test('every package in package-lock.json accepts every Node version package.json promises', async (t) => {
  const pkg = await json<{ engines: { node: string } }>('package.json');
  const lock = await json<{ packages: Record<string, LockEntry> }>('package-lock.json');
  const promised = pkg.engines.node;
  const refusing = Object.entries(lock.packages)
    .filter(([path]) => path !== '')
    .flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (range === undefined || semver.subset(promised, range)) return [];
      return [`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${range}`];
    });
  t.same(refusing, [], `packages refusing part of "${promised}"`);
  t.same(lock.packages['']?.engines, pkg.engines, 'the lock file records the same engines');
});

t.test('the README names the same Node versions, and this Node is one of them', async (t) => {
  const pkg = await json<{ engines: { node: string } }>('package.json');
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  t.ok(readme.includes(`\`${pkg.engines.node}\``), `README quotes engines.node \`${pkg.engines.node}\``);
  t.notMatch(readme, /Node\s*(≥|>=)\s*\d/, 'no looser "Node ≥ x" claim besides it');
  t.ok(
    semver.satisfies(process.versions.node, pkg.engines.node),
    `the Node running the tests (${process.versions.node}) is a promised one`,
  );
});
