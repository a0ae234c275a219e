import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { parse } from 'yaml';
import { ensureBases } from './bases.ts';
import { clusterProfile } from './clusterProfile.ts';
import { defaultProfile } from './defaultProfile.ts';
import { composeCommand, docker, engineProblem } from './engine.ts';
import { leftOut } from './leftOut.ts';
import { Stack, sweepStale } from './stack.ts';

/**
 * The compose tier (issue #30): the repository's Dockerfile and docker-compose.yml on a real local engine.
 * Not part of `npm test` (its name does not match `*.test.ts`); `.ci/run` runs it as its own step:
 * `npx tap --jobs=1 --timeout=1500 test/compose/compose.tier.ts` (root, an engine, debootstrap, the built gc).
 * Without an engine it fails under CI and skips, saying why, elsewhere. It removes every container,
 * network, volume and image it made, also when it fails; only the base images stay, as a cache.
 */
t.setTimeout(25 * 60_000);

const problem =
  (await engineProblem()) ??
  ((await composeCommand()) ? undefined : 'no docker compose and no docker-compose');
if (problem) {
  if (process.env.CI) t.fail(problem);
  else t.plan(0, problem);
} else {
  const compose = (await composeCommand())!;
  const figures: Record<string, number> = {};
  const stale = await sweepStale();
  if (stale.length) t.comment(`removed what an earlier run left: ${stale.join(', ')}`);
  const bases = await ensureBases((line) => t.comment(line));
  const stack = new Stack(compose, bases);
  await stack.init();
  t.teardown(async () => {
    await stack.destroy();
    const left = await stack.leftovers();
    const images = await stack.imagesMade();
    if (left.length || images.length)
      console.error(`# compose tier left behind: ${[...left, ...images].join(', ')}`);
    if (process.env.GC_COMPOSE_FIGURES)
      writeFileSync(process.env.GC_COMPOSE_FIGURES, JSON.stringify(figures, null, 2) + '\n');
    t.comment(`figures ${JSON.stringify(figures)}`);
  });
  // tap ends a file that runs past its timeout with SIGTERM: take the stack down then too.
  process.once('SIGTERM', () => void stack.destroy().then(() => process.exit(1)));

  t.test('the override swaps image names and build arguments only', async (t) => {
    const doc = parse(readFileSync(stack.override, 'utf8')) as {
      services: Record<string, Record<string, unknown>>;
    };
    t.same(Object.keys(doc), ['services']);
    for (const [name, service] of Object.entries(doc.services)) {
      t.same(
        Object.keys(service).filter((k) => k !== 'image' && k !== 'build'),
        [],
        `${name}: image and build only`,
      );
      if (service.build) t.same(Object.keys(service.build), ['args'], `${name}: build arguments only`);
    }
  });

  t.test('the image builds with compose on the local bases', async (t) => {
    const started = Date.now();
    await stack.run(['build', 'supervisor'], 900_000);
    figures.build_ms = Date.now() - started;
    const size = async (image: string) =>
      Number((await docker(['image', 'inspect', '-f', '{{.Size}}', image])).trim());
    figures.image_bytes = await size(stack.image);
    figures.base_bytes = await size(bases.node);
    figures.runtime_stage_bytes = figures.image_bytes - figures.base_bytes;
    const user = (await docker(['image', 'inspect', '-f', '{{.Config.User}}', stack.image])).trim();
    t.equal(user, 'node', 'runs as the non-root node user');
    const health = await docker(['image', 'inspect', '-f', '{{json .Config.Healthcheck}}', stack.image]);
    t.match(health, /127\.0\.0\.1:8372\/health/, 'with a health check');
    const listing = await docker([
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      stack.image,
      '-c',
      'ls node_modules/.bin; test -d node_modules/typescript && echo HAS_TYPESCRIPT; test -d node_modules/tap && echo HAS_TAP; ls web',
    ]);
    t.notMatch(listing, /HAS_TYPESCRIPT|HAS_TAP/, 'no dev dependencies in the runtime stage');
    t.match(listing, /index\.html/, 'the dashboard files are in it');
    t.comment(
      `build ${figures.build_ms} ms; runtime stage ${(figures.runtime_stage_bytes / 1e6).toFixed(1)} MB over the base`,
    );
  });

  t.test('an image missing a file the supervisor reads at run time fails the tier', (t) => leftOut(t, stack));
  t.test('default profile: up, a city from the host, restart, down/up, down -v', (t) =>
    defaultProfile(t, stack, figures),
  );
  t.test('cluster profile: the owner killed under a writer, the other takes over', (t) =>
    clusterProfile(t, stack, figures),
  );
}
