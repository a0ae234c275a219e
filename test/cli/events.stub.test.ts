import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { GcProcess, isolatedEnv, jsonLines, runGc } from './helpers/gc.ts';
import { StubApi } from './helpers/stubApi.ts';

/**
 * `gc events` against a stub of the event API: the wire-level cases (paging order, an undecodable frame, a
 * Problem at stream setup, a connection cut mid-stream, an overlapping replay) that a real supervisor does
 * not produce on demand. The same modes run against the real supervisor in events.supervisor.test.ts.
 */

async function setup(t: Test): Promise<{ stub: StubApi; env: NodeJS.ProcessEnv; home: string }> {
  const stub = await new StubApi().listen();
  t.teardown(() => stub.close());
  const home = await mkdtemp(join(tmpdir(), 'gc-cli-stub-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  return { stub, env: isolatedEnv(home, { GC_API: stub.url }), home };
}

// A dozen short gc processes per test add up on a busy 2-core machine.
t.setTimeout(5 * 60_000);

const gc = (env: NodeJS.ProcessEnv, ...args: string[]) => runGc(['events', ...args], { env, cwd: tmpdir() });

function seedCity(stub: StubApi, city = 'alpha', n = 7): void {
  for (let i = 1; i <= n; i++) {
    stub.emit(city, {
      type: i % 2 ? 'bead.created' : 'mail.sent',
      subject: `s${i}`,
      payload: { n: i, bead: { issue_type: i % 3 === 0 ? 'bug' : 'task' } },
    });
  }
}

t.test(
  'city list: every page is fetched with limit=500 and printed oldest-first as compact JSON',
  async (t) => {
    const { stub, env } = await setup(t);
    seedCity(stub);
    const r = await gc(env, '--city', 'alpha');
    t.equal(r.code, 0);
    t.equal(r.stderr, '');
    const lines = jsonLines(r.stdout);
    t.same(
      lines.map((l) => l.seq),
      [1, 2, 3, 4, 5, 6, 7],
    );
    t.same(lines, stub.logs.get('alpha'), 'each line is the list item, unchanged');
    t.equal(
      r.stdout,
      stub.logs
        .get('alpha')!
        .map((e) => JSON.stringify(e) + '\n')
        .join(''),
      'compact, one per line',
    );
    const pages = stub.requests.filter((q) => q.startsWith('GET /v0/city/alpha/events?'));
    t.equal(pages.length, 3, 'three pages of three');
    t.ok(pages.every((q) => q.includes('limit=500')));
    t.match(pages[1], /cursor=3/);
  },
);

t.test('supervisor list: tagged lines, oldest-first, even when served newest-first', async (t) => {
  const { stub, env } = await setup(t);
  stub.emit('alpha', { type: 'a', ts: '2026-01-01T00:00:01Z' });
  stub.emit('__supervisor__', { type: 'b', ts: '2026-01-01T00:00:02Z' });
  stub.emit('beta', { type: 'c', ts: '2026-01-01T00:00:03Z' });
  const r = await gc(env);
  t.equal(r.code, 0);
  t.same(
    jsonLines(r.stdout).map((l) => [l.type, l.city]),
    [
      ['a', 'alpha'],
      ['b', '__supervisor__'],
      ['c', 'beta'],
    ],
  );
});

t.test('filters select lines without changing them; nothing matching means empty stdout', async (t) => {
  const { stub, env } = await setup(t);
  seedCity(stub);
  stub.emit('alpha', { type: 'old', ts: new Date(Date.now() - 3_600_000).toISOString() });
  const seqs = async (...args: string[]) => {
    const r = await gc(env, '--city', 'alpha', ...args);
    t.equal(r.code, 0, args.join(' '));
    return jsonLines(r.stdout).map((l) => l.seq);
  };
  t.same(await seqs('--type', 'mail.sent'), [2, 4, 6]);
  t.same(await seqs('--payload-match', 'bead.issue_type=bug'), [3, 6]);
  t.same(await seqs('--payload-match', 'n=1', '--payload-match', 'n=2'), [1, 2], 'same path: OR');
  t.same(
    await seqs('--payload-match', 'n=3', '--payload-match', 'bead.issue_type=bug'),
    [3],
    'different paths: AND',
  );
  t.same(await seqs('--since', '30m'), [1, 2, 3, 4, 5, 6, 7], 'the hour-old event is left out');
  t.same(await seqs('--after', '5'), [6, 7, 8]);
  const none = await gc(env, '--city', 'alpha', '--type', 'no.such.type');
  t.equal(none.code, 0);
  t.equal(none.stdout, '', 'empty stdout');
  t.equal(none.stderr, '');
});

t.test('--seq prints the head cursor as plain text in both scopes', async (t) => {
  const { stub, env } = await setup(t);
  seedCity(stub, 'alpha', 4);
  stub.emit('__supervisor__', { type: 'x' });
  const city = await gc(env, '--city', 'alpha', '--seq');
  t.same([city.code, city.stdout, city.stderr], [0, '4\n', '']);
  const sup = await gc(env, '--seq');
  t.same([sup.code, sup.stdout, sup.stderr], [0, '__supervisor__:1,alpha:4\n', '']);
  stub.logs.clear();
  const empty = await gc(env, '--seq');
  t.equal(empty.stdout, '0\n', 'an empty supervisor cursor is 0');
});

t.test('--watch prints the first match from the head, swallowing heartbeats, then exits 0', async (t) => {
  const { stub, env } = await setup(t);
  seedCity(stub, 'alpha', 3);
  const p = new GcProcess(['events', '--city', 'alpha', '--watch', '--type', 'wanted'], { env });
  while (stub.openStreams === 0) await new Promise((r) => setTimeout(r, 20));
  t.match(stub.requests.at(-1), /after_seq=3/, 'streams from the head it read first');
  stub.heartbeat();
  stub.emit('alpha', { type: 'unwanted' });
  stub.emit('alpha', { type: 'wanted', payload: { k: 1 } });
  stub.emit('alpha', { type: 'wanted', payload: { k: 2 } });
  const r = await p.done;
  t.equal(r.code, 0);
  t.same(jsonLines(r.stdout), [stub.logs.get('alpha')![4]], 'exactly the first match');
  t.equal(r.stderr, '');
});

t.test('--watch with --after first checks the recorded events', async (t) => {
  const { stub, env } = await setup(t);
  seedCity(stub, 'alpha', 6);
  const r = await gc(env, '--city', 'alpha', '--watch', '--after', '2', '--type', 'mail.sent');
  t.equal(r.code, 0);
  t.same(
    jsonLines(r.stdout).map((l) => l.seq),
    [4],
    'one line: the first match after seq 2',
  );
  const sup = await gc(env, '--watch', '--after-cursor', 'alpha:3', '--type', 'mail.sent');
  t.same(
    jsonLines(sup.stdout).map((l) => [l.seq, l.city]),
    [[4, 'alpha']],
  );
});

t.test('--watch times out with empty stdout and exit 0', async (t) => {
  const { stub, env } = await setup(t);
  seedCity(stub, 'alpha', 2);
  const started = Date.now();
  const r = await gc(env, '--city', 'alpha', '--watch', '--timeout', '700ms');
  t.same([r.code, r.stdout, r.stderr], [0, '', '']);
  t.ok(Date.now() - started >= 700, 'waited for the time-out');
});

t.test('--watch fails when the stream ends before a match', async (t) => {
  const { stub, env } = await setup(t);
  stub.addCity('alpha');
  const p = new GcProcess(['events', '--city', 'alpha', '--watch'], { env });
  while (stub.openStreams === 0) await new Promise((r) => setTimeout(r, 20));
  stub.disconnect();
  const r = await p.done;
  t.same([r.code, r.stdout, r.stderr], [1, '', 'gc events: stream ended before a matching event arrived\n']);
});

t.test('a Problem at stream setup is reported by its detail, with nothing on stdout', async (t) => {
  const { stub, env } = await setup(t);
  stub.problems.set('/v0/events/stream', { status: 503, detail: 'unavailable: journal unavailable' });
  for (const mode of ['--watch', '--follow']) {
    const r = await gc(env, mode);
    t.same([r.code, r.stdout, r.stderr], [1, '', 'gc events: unavailable: journal unavailable\n'], mode);
  }
  const unknown = await gc(env, '--city', 'nope');
  t.same(
    [unknown.code, unknown.stdout, unknown.stderr],
    [1, '', 'gc events: not_found: city not found or not running: nope\n'],
  );
});

t.test('an undecodable frame is a decode failure, and earlier lines stay printed', async (t) => {
  const { stub, env } = await setup(t);
  stub.addCity('alpha');
  const p = new GcProcess(['events', '--city', 'alpha', '--follow'], { env });
  while (stub.openStreams === 0) await new Promise((r) => setTimeout(r, 20));
  stub.emit('alpha', { type: 'fine' });
  await p.waitForLines(1);
  stub.raw('id: 2\nevent: event\ndata: {"seq":2,"type":\n\n');
  const r = await p.done;
  t.equal(r.code, 1);
  t.equal(jsonLines(r.stdout).length, 1);
  t.match(r.stderr, /^gc events: decode: .*\n$/);
  const w = new GcProcess(['events', '--watch'], { env });
  while (stub.openStreams === 0) await new Promise((r) => setTimeout(r, 20));
  stub.raw('id: alpha:9\nevent: tagged_event\ndata: [1,2]\n\n');
  const rw = await w.done;
  t.same([rw.code, rw.stdout], [1, '']);
  t.match(rw.stderr, /^gc events: decode: expected a JSON object/);
});

t.test('--follow survives server-side disconnects without a line missing or repeated', async (t) => {
  const { stub, env } = await setup(t);
  seedCity(stub, 'alpha', 2);
  stub.replayOverlap = 2; // every reconnect replays two events the client already printed
  const p = new GcProcess(['events', '--city', 'alpha', '--follow'], { env });
  t.teardown(() => p.stop());
  while (stub.openStreams === 0) await new Promise((r) => setTimeout(r, 20));
  for (let i = 3; i <= 5; i++) stub.emit('alpha', { type: 'e', payload: { i } });
  await p.waitForLines(3);
  stub.disconnect(); // clean EOF
  stub.emit('alpha', { type: 'e', payload: { i: 6 } }); // while nobody listens
  await p.until(() => stub.openStreams > 0, 10_000, 'reconnect');
  stub.emit('alpha', { type: 'e', payload: { i: 7 } });
  await p.waitForLines(5);
  stub.disconnect(true); // a cut connection
  stub.emit('alpha', { type: 'e', payload: { i: 8 } });
  await p.until(() => stub.openStreams > 0, 10_000, 'second reconnect');
  stub.heartbeat();
  stub.emit('alpha', { type: 'e', payload: { i: 9 } });
  await p.waitForLines(7);
  await new Promise((r) => setTimeout(r, 200));
  const r = await p.stop();
  t.same(
    jsonLines(r.stdout).map((l) => l.seq),
    [3, 4, 5, 6, 7, 8, 9],
  );
  t.match(r.stderr, /gc events: stream ended, reconnecting in 1s\n/);
  t.match(r.stderr, /gc events: stream broke, reconnecting in 1s: /, 'progress resets the back-off');
  t.match(
    stub.requests.filter((q) => q.includes('/stream')).at(-1),
    /after_seq=7/,
    'resumed from the last printed seq',
  );
});

t.test('supervisor --follow resumes from the last composite cursor across disconnects', async (t) => {
  const { stub, env } = await setup(t);
  stub.emit('alpha', { type: 'old' });
  stub.replayOverlap = 1;
  const p = new GcProcess(['events', '--follow'], { env });
  t.teardown(() => p.stop());
  while (stub.openStreams === 0) await new Promise((r) => setTimeout(r, 20));
  stub.emit('alpha', { type: 'e1' });
  stub.emit('beta', { type: 'e2' });
  await p.waitForLines(2);
  stub.disconnect(true);
  stub.emit('__supervisor__', { type: 'e3' });
  stub.emit('alpha', { type: 'e4' });
  await p.waitForLines(4);
  const r = await p.stop();
  t.same(
    jsonLines(r.stdout).map((l) => l.type),
    ['e1', 'e2', 'e3', 'e4'],
  );
  t.match(
    stub.requests.filter((q) => q.startsWith('GET /v0/events/stream')).at(-1),
    /after_cursor=__supervisor__%3A0%2Calpha%3A2%2Cbeta%3A1/,
  );
});

t.test('--follow retries a refused connection with back-off instead of failing', async (t) => {
  const { stub, env } = await setup(t);
  stub.addCity('alpha');
  const p = new GcProcess(['events', '--city', 'alpha', '--follow'], { env });
  t.teardown(() => p.stop());
  while (stub.openStreams === 0) await new Promise((r) => setTimeout(r, 20));
  stub.problems.set('/v0/city/alpha/events/stream', { status: 503, detail: 'unavailable: restarting' });
  stub.heartbeat();
  stub.disconnect();
  await p.waitForStderr(/gc events: stream ended, reconnecting in 1s\n/);
  await p.waitForStderr(/gc events: connect failed, retrying in 2s: unavailable: restarting\n/);
  stub.problems.clear();
  await p.until(() => stub.openStreams > 0, 10_000, 'reconnect');
  stub.emit('alpha', { type: 'back' });
  await p.waitForLines(1);
  const r = await p.stop();
  t.same(
    jsonLines(r.stdout).map((l) => l.type),
    ['back'],
  );
});

t.test('city scope comes from --city, GC_CITY, or a registered city directory around the cwd', async (t) => {
  const { stub, env } = await setup(t);
  stub.emit('alpha', { type: 'a', ts: '2026-01-01T00:00:01Z' });
  stub.emit('__supervisor__', { type: 'sup', ts: '2026-01-01T00:00:02Z' });
  const dir = await mkdtemp(join(tmpdir(), 'gc-city-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'city.toml'), '[workspace]\nname = "alpha"\n');
  await mkdir(join(dir, '.gc'));
  await mkdir(join(dir, 'deep', 'er'), { recursive: true });
  stub.cityPaths.set('alpha', dir);
  const types = async (args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) => {
    const r = await runGc(['events', ...args], { env: opts.env ?? env, cwd: opts.cwd ?? tmpdir() });
    t.equal(r.code, 0, r.stderr);
    return jsonLines(r.stdout).map((l) => l.city ?? 'city-scope');
  };
  t.same(await types([]), ['alpha', '__supervisor__'], 'no city: supervisor scope');
  t.same(await types(['--city', 'alpha']), ['city-scope']);
  t.same(await types([], { env: { ...env, GC_CITY: 'alpha' } }), ['city-scope']);
  t.same(await types([], { cwd: join(dir, 'deep', 'er') }), ['city-scope'], 'walks up from the cwd');
  t.same(await types(['--city', dir]), ['city-scope'], 'a path maps to its registered name');
  stub.cityPaths.set('alpha', '/elsewhere');
  t.same(
    await types([], { cwd: dir }),
    ['alpha', '__supervisor__'],
    'an unregistered city directory: supervisor scope',
  );
  const r = await runGc(['events', '--city', dir], { env, cwd: tmpdir() });
  t.same([r.code, r.stdout], [1, '']);
  t.match(r.stderr, /^gc events: no registered city at /);
});
