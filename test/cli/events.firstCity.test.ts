import { join } from 'node:path';
import t from 'tap';
import { GcProcess, jsonLines, runGc } from './helpers/gc.ts';
import { startSupervisorProc } from './helpers/supervisorProc.ts';

/**
 * "Follow, then create your first city": a real supervisor with no city answers the supervisor stream with
 * 503 no_providers (spec 6.3). `gc events --follow` and `--watch` wait for a city like `tail -F` waits for
 * a file, say so once on stderr, and then print the new city's events from its first one: nothing skipped,
 * nothing printed twice. Run as the built binary (`npm run build` first).
 */

t.setTimeout(5 * 60_000);

type Line = Record<string, unknown> & { city: string; seq: number; type: string };
const key = (e: Line): string => `${e.city}#${e.seq}`;

t.test('--follow and --watch started before the first city print its events once it exists', async (t) => {
  const sup = await startSupervisorProc(t);
  const gcOpts = { env: sup.env, cwd: sup.home };
  const before = (await sup.call('GET', '/v0/events')).body as { items: Line[] };
  const stream = await sup.call('GET', '/v0/events/stream');
  t.match(stream.body, { detail: /^no_providers:/ }, 'no city yet: the stream answers 503 no_providers');

  const follow = new GcProcess(['events', '--follow'], gcOpts);
  const watch = new GcProcess(
    ['events', '--watch', '--type', 'request.result.city.create', '--timeout', '2m'],
    gcOpts,
  );
  t.teardown(() => Promise.all([follow.stop(), watch.stop()]));
  // Both have met the 503 (and said so) before the city exists: this is the case under test.
  await follow.waitForStderr(/no_providers/);
  await watch.waitForStderr(/no_providers/);

  const created = await runGc(
    ['city', 'create', join(sup.cities, 'alpha'), '--start-command', 'sleep 600', '--wait'],
    gcOpts,
  );
  t.equal(created.code, 0, `create: ${created.stderr}`);
  const result = jsonLines(created.stdout)[0] as Line;

  const w = await watch.done;
  t.equal(w.code, 0, `--watch exits 0 (stderr: ${w.stderr})`);
  t.same(
    jsonLines(w.stdout).map((e) => e.payload),
    [result.payload],
    '--watch printed the terminal event of the create',
  );

  await follow.until(
    () => jsonLines(follow.stdout()).some((e) => e.type === 'request.result.city.create'),
    60_000,
    'the follower to print the create result',
  );
  const after = (await sup.call('GET', '/v0/events')).body as { items: Line[] };
  const seenBefore = new Set(before.items.map(key));
  const expected = after.items.filter((e) => !seenBefore.has(key(e))).map(key);
  await follow.until(
    () => expected.every((k) => jsonLines(follow.stdout()).some((e) => key(e as Line) === k)),
    60_000,
    'the follower to print every event recorded since it started',
  );
  const f = await follow.stop();
  const printed = (jsonLines(f.stdout) as Line[]).map(key);
  t.ok(printed.includes('alpha#1'), 'the new city is followed from its first event');
  t.same(
    expected.filter((k) => !printed.includes(k)),
    [],
    'nothing recorded since the follow started is skipped',
  );
  t.same(
    printed.filter((k, i) => printed.indexOf(k) !== i),
    [],
    'no event printed twice',
  );
  const final = (await sup.call('GET', '/v0/events')).body as { items: Line[] };
  const recorded = new Set(final.items.map(key));
  t.same(
    printed.filter((k) => seenBefore.has(k) || !recorded.has(k)),
    [],
    'only events recorded after the follow started',
  );
  for (const [name, stderr] of [
    ['--follow', f.stderr],
    ['--watch', w.stderr],
  ] as const) {
    t.equal(stderr.match(/no_providers/g)?.length, 1, `${name} says once that it waits: ${stderr}`);
    t.match(stderr, /^gc events: waiting for a city to start/m, `${name} says what it waits for`);
  }
});
