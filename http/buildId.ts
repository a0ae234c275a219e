import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The build identity `/health` reports as upstream's `build_id`: `GC_BUILD_ID` when the packager set it
 * (an image has no .git), else the short commit of the checkout this code runs from, `-dirty` when the
 * tree has changes, else empty. Read once: a different value means a different supervisor build.
 */
export function buildId(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GC_BUILD_ID !== undefined) return env.GC_BUILD_ID.trim();
  if (cached !== undefined) return cached;
  const cwd = dirname(fileURLToPath(import.meta.url));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    cached = git('status', '--porcelain', '--untracked-files=no') === '' ? commit : `${commit}-dirty`;
  } catch {
    cached = '';
  }
  return cached;
}
