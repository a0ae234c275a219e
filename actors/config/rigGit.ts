import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { GitStatus } from '../../schemas/rigs.ts';

const run = promisify(execFile);

/** `git status --porcelain=v2 --branch` read into upstream's GitStatus. Pure. */
export function parseGitStatus(text: string): GitStatus {
  let branch = '';
  let ahead = 0;
  let behind = 0;
  let changed = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('# branch.head ')) branch = line.slice('# branch.head '.length);
    else if (line.startsWith('# branch.ab ')) {
      const m = /\+(\d+) -(\d+)/.exec(line);
      if (m) [ahead, behind] = [Number(m[1]), Number(m[2])];
    } else if (line !== '' && !line.startsWith('#')) changed++;
  }
  return { branch, clean: changed === 0, changed_files: changed, ahead, behind };
}

/** The git status of the repository at `dir`. Effects: runs git. @throws when `dir` is not a git work tree. */
export async function gitStatus(dir: string): Promise<GitStatus> {
  const { stdout } = await run('git', ['-C', dir, 'status', '--porcelain=v2', '--branch'], {
    timeout: 10_000,
  });
  return parseGitStatus(stdout);
}
