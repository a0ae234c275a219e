import { writeFileSync } from 'node:fs';
import type { Test } from 'tap';
import { docker } from './engine.ts';
import { overrideYaml, type Stack } from './stack.ts';

/**
 * The tier's own proof: the built image with one thing the supervisor reads at run time taken out (web/,
 * the dashboard's files, which the issue found missing) fails the tier's start check, naming what is
 * missing, because the supervisor exits at once and the engine restarts it in a loop. The image is made
 * from the tier's own by removing the folder, so the proof costs seconds, not a second build.
 */
export async function leftOut(t: Test, stack: Stack): Promise<void> {
  const image = `${stack.name}/supervisor:no-web`;
  await docker(['build', '-q', '-t', image, '-'], {
    input: `FROM ${stack.image}\nUSER root\nRUN rm -r /app/web\nUSER node\n`,
    env: { ...process.env, DOCKER_BUILDKIT: '0' },
  });
  writeOverride(stack, image);
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
    writeOverride(stack, stack.image);
    await docker(['rmi', image]);
  }
}

function writeOverride(stack: Stack, image: string): void {
  writeFileSync(stack.override, overrideYaml(stack.bases, image));
}
