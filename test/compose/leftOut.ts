import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { ROOT } from '../cli/helpers/gc.ts';
import { docker } from './engine.ts';
import { overrideYaml, type Stack } from './stack.ts';

/** The Dockerfile line that puts the dashboard's files in the image (the one the issue found missing). */
const WEB = 'COPY web ./web';

/**
 * The tier's own proof: the same Dockerfile without one file the supervisor reads at run time (web/) builds
 * fine, and the tier's start check fails on it, naming what is missing, because the supervisor exits at once
 * and the engine restarts it in a loop.
 */
export async function leftOut(t: Test, stack: Stack): Promise<void> {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const lines = dockerfile.split('\n');
  t.ok(lines.includes(WEB), `the Dockerfile has "${WEB}"`);
  const without = join(stack.dir, 'Dockerfile.no-web');
  writeFileSync(without, lines.filter((l) => l !== WEB).join('\n'));
  const image = `${stack.name}/supervisor:no-web`;
  await docker(
    ['build', '-q', '-f', without, '--build-arg', `NODE_IMAGE=${stack.bases.node}`, '-t', image, ROOT],
    { timeoutMs: 600_000, env: { ...process.env, DOCKER_BUILDKIT: '0' } },
  );
  writeFileSync(stack.override, overrideYaml(stack.bases, image));
  try {
    await stack.run(['up', '-d', '--no-build']);
    const failure = await stack.healthy('supervisor', 90_000).then(
      () => undefined,
      (err: Error) => err.message,
    );
    t.ok(failure, 'the start check fails on an image without web/');
    t.match(failure, /did not start/, 'because the supervisor exits rather than serving');
    t.match(failure, /web\/ \(the dashboard files\) is missing/, 'and the failure names what is missing');
  } finally {
    await stack.run(['down', '-v', '-t', '5']);
    writeFileSync(stack.override, overrideYaml(stack.bases, stack.image));
    await docker(['rmi', image]);
  }
}
