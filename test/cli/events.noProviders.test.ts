import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { GcProcess, isolatedEnv, jsonLines, runGc } from './helpers/gc.ts';
import { StubApi } from './helpers/stubApi.ts';

/**
 * The supervisor stream answers 503 `no_providers:` while no city is running (spec 6.3). `gc events
 * --watch` and `--follow` wait for a city (like `tail -F` for a file), say so once on stderr, and start
 * streaming when one appears. The real supervisor case is events.firstCity.test.ts.
 */

t.setTimeout(5 * 60_000);

async function setup(t: Test): Promise<{ stub: StubApi; env: NodeJS.ProcessEnv }> {
  const stub = await new StubApi().listen();
  t.teardown(() => stub.close());
  const home = await mkdtemp(join(tmpdir(), 'gc-cli-stub-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  return { stub, env: isolatedEnv(home, { GC_API: stub.url }) };
}

const gc = (env: NodeJS.ProcessEnv, ...args: string[]) => runGc(['events', ...args], { env, cwd: tmpdir() });

t.test('503 no_providers (no city yet) is waited out, said once, and the stream then starts', async (t) => {
  const { stub, env } = await setup(t);
  const noCity = { status: 503, detail: 'no_providers: no event providers available' };
  const waiting =
    'gc events: waiting for a city to start (no_providers: no event providers available); retrying every 1s\n';
  stub.problems.set('/v0/events/stream', noCity);
  const w = await gc(env, '--watch', '--timeout', '2500ms');
  t.same([w.code, w.stdout, w.stderr], [0, '', waiting], '--watch: waits within --timeout, then nothing');
  const asked = (): number => stub.requests.filter((r) => r.startsWith('GET /v0/events/stream')).length;
  t.ok(asked() >= 2, `--watch asked again while waiting (${asked()} attempts)`);

  const p = new GcProcess(['events', '--follow'], { env, cwd: tmpdir() });
  const first = asked();
  await p.until(() => asked() >= first + 2, 15_000, 'two attempts');
  stub.problems.delete('/v0/events/stream');
  while (stub.openStreams === 0) await new Promise((r) => setTimeout(r, 20));
  stub.emit('alpha', { type: 'first.city' });
  await p.waitForLines(1);
  const r = await p.stop();
  t.same(
    jsonLines(r.stdout).map((e) => [e.city, e.seq, e.type]),
    [['alpha', 1, 'first.city']],
  );
  t.equal(r.stderr, waiting, '--follow: said once, however many attempts');
});
