import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { formulaLayers } from '../formulas/index.ts';

const run = promisify(execFile);

/**
 * The default branch of the repository at `dir` as upstream's API reads it: `origin/HEAD`'s branch
 * (`git symbolic-ref --short refs/remotes/origin/HEAD`, `origin/` dropped), empty when git or the ref is
 * not there. Effects: runs git.
 */
export async function gitDefaultBranch(dir: string): Promise<string> {
  try {
    const { stdout } = await run('git', ['-C', dir, 'symbolic-ref', '--short', 'refs/remotes/origin/HEAD'], {
      timeout: 5000,
    });
    return stdout.trim().replace(/^origin\//, '');
  } catch {
    return '';
  }
}

/**
 * A sling's default-branch lookup for the city at `cityPath`: the rig's repository in a rig context
 * (as its config names it), the city's otherwise. Effects: reads the city's config; runs git.
 */
export function slingDefaultBranch(cityPath: string): (rig: string | undefined) => Promise<string> {
  return async (rig) => {
    const root =
      rig === undefined ? undefined : (await formulaLayers(cityPath)).rigs.find((r) => r.name === rig)?.root;
    return gitDefaultBranch(root ?? cityPath);
  };
}
