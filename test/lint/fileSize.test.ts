/**
 * No source file over 450 lines outside bench/ and test/ (issue 31): a file that long does several jobs, and
 * the house is read from small files whose names say what they do. Counts every tracked source file
 * (TypeScript and the scripts of bin/ and web/), the way `wc -l` does.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_LINES = 450;
const SOURCE = /\.(ts|mts|mjs|js|css|html)$/;
const EXEMPT = /^(bench|test|docs)\//;

t.test(`no source file outside bench/ and test/ is over ${MAX_LINES} lines`, async (t) => {
  const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => SOURCE.test(f) && !EXEMPT.test(f));
  t.ok(files.length > 300, `the check sees the sources (${files.length} files)`);
  const long = files
    .map((f) => ({ f, n: readFileSync(join(root, f), 'utf8').split('\n').length - 1 }))
    .filter(({ n }) => n > MAX_LINES)
    .map(({ f, n }) => `${f}: ${n} lines`);
  t.same(long, [], 'files over the limit');
});
