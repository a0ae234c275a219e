import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { GC_BIN, isolatedEnv, jsonLines, runGc } from './helpers/gc.ts';
import { SessionStub } from './helpers/sessionStub.ts';

/**
 * `gc session …` against a stub of one city's session routes and event stream: what each command sends
 * (method, path, query, X-GC-Request, body) and what it prints, including outcomes a real supervisor does
 * not produce on demand (request.failed, Problems on any route).
 */

t.setTimeout(5 * 60_000);

async function setup(t: Test): Promise<{ stub: SessionStub; env: NodeJS.ProcessEnv; home: string }> {
  const stub = await new SessionStub('town').listen();
  t.teardown(() => stub.close());
  const home = await mkdtemp(join(tmpdir(), 'gc-cli-session-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  return { stub, env: isolatedEnv(home, { GC_API: stub.url, GC_CITY: 'town' }), home };
}

const failure = (r: { code: number | null; stdout: string; stderr: string }): unknown[] => [
  r.code,
  r.stdout,
  r.stderr,
];

t.test('list prints a table of every page, or JSON Lines with --json; filters go in the query', async (t) => {
  const { stub, env } = await setup(t);
  stub.add({ alias: 'boss', title: 'the mayor' });
  stub.add({ template: 'worker', state: 'asleep', running: false, title: 'a worker' });
  stub.add({ template: 'worker', title: 'another' });
  const table = await runGc(['session', 'list'], { env });
  t.equal(table.code, 0, table.stderr);
  t.equal(
    table.stdout,
    [
      'ID    NAME    ALIAS  STATE   RUNNING  TEMPLATE  TITLE',
      'gc-1  s-gc-1  boss   active  yes      mayor     the mayor',
      'gc-2  s-gc-2  -      asleep  no       worker    a worker',
      'gc-3  s-gc-3  -      active  yes      worker    another',
      '',
    ].join('\n'),
  );
  t.same(
    stub.received.filter((r) => r.path.endsWith('/sessions')).map((r) => [r.method, r.query]),
    [
      ['GET', {}],
      ['GET', { cursor: '2' }],
    ],
    'follows next_cursor to the last page',
  );
  const json = await runGc(['session', 'list', '--json', '--template', 'worker', '--state', 'active'], {
    env,
  });
  t.equal(json.code, 0, json.stderr);
  t.same(jsonLines(json.stdout), [stub.sessions[2]]);
  t.same(stub.received.at(-1)?.query, { template: 'worker', state: 'active' });
  await runGc(['session', 'list', '--json', '--peek'], { env });
  t.same(stub.received.at(-1)?.query, { peek: 'true', cursor: '2' });
  stub.sessions.length = 0;
  const none = await runGc(['session', 'list', '--json'], { env });
  t.same([none.code, none.stdout], [0, ''], 'no sessions: nothing on stdout');
});

t.test(
  'the city comes from --city, GC_CITY or the city directory around cwd; none is an error',
  async (t) => {
    const { stub, env, home } = await setup(t);
    stub.add();
    const dir = join(home, 'town-dir');
    await mkdir(join(dir, '.gc', 'x'), { recursive: true });
    await writeFile(join(dir, 'city.toml'), '');
    stub.cityPath = dir;
    const noCity = { ...env };
    delete noCity.GC_CITY;
    const fromCwd = await runGc(['session', 'list', '--json'], { env: noCity, cwd: join(dir, '.gc', 'x') });
    t.equal(fromCwd.code, 0, fromCwd.stderr);
    t.same(jsonLines(fromCwd.stdout), [stub.sessions[0]]);
    const fromFlag = await runGc(['session', 'show', 'gc-1', '--city', 'town'], { env: noCity, cwd: home });
    t.equal(fromFlag.code, 0, fromFlag.stderr);
    const nowhere = await runGc(['session', 'list'], { env: noCity, cwd: home });
    t.same(failure(nowhere), [
      1,
      '',
      'gc session list: no city in scope; pass --city <name>, set GC_CITY, or run inside a city directory\n',
    ]);
    const elsewhere = await runGc(['session', 'list', '--city', 'ghost'], { env });
    t.same(failure(elsewhere), [1, '', 'gc session list: not_found: city not found or not running: ghost\n']);
  },
);

t.test(
  'show prints the session as one JSON line; --peek-lines asks for a peek; unknown is 404',
  async (t) => {
    const { stub, env } = await setup(t);
    const s = stub.add({ alias: 'boss' });
    const byAlias = await runGc(['session', 'show', 'boss'], { env });
    t.equal(byAlias.code, 0, byAlias.stderr);
    t.equal(byAlias.stdout, JSON.stringify(s) + '\n');
    t.match(stub.received.at(-1), { method: 'GET', path: '/v0/city/town/session/boss', query: {} });
    const peek = await runGc(['session', 'show', 'gc-1', '--peek-lines', '20'], { env });
    t.match(jsonLines(peek.stdout), [{ id: 'gc-1', last_output: 'echo: hi' }]);
    t.same(stub.received.at(-1)?.query, { peek: 'true', peek_lines: '20' });
    const unknown = await runGc(['session', 'show', 'a/b c'], { env });
    t.same(failure(unknown), [1, '', 'gc session show: not_found: session not found: a/b c\n']);
    t.equal(stub.received.at(-1)?.path, '/v0/city/town/session/a%2Fb%20c', 'the id is one path segment');
  },
);

t.test('create without --wait prints the 202 body; the body carries the flags', async (t) => {
  const { stub, env } = await setup(t);
  const r = await runGc(
    ['session', 'create', 'mayor', '--kind', 'agent', '--alias', 'boss', '--title', 'T', '--message', 'hi'],
    { env },
  );
  t.equal(r.code, 0, r.stderr);
  t.same(jsonLines(r.stdout), [{ status: 'accepted', request_id: 'req-00000001', event_cursor: '0' }]);
  t.same(stub.mutations, [
    {
      method: 'POST',
      path: '/v0/city/town/sessions',
      query: {},
      header: 'gc',
      body: { name: 'mayor', kind: 'agent', alias: 'boss', title: 'T', message: 'hi' },
    },
  ]);
  const bare = await runGc(['session', 'create', 'claude'], { env });
  t.equal(bare.code, 0, bare.stderr);
  t.same(stub.mutations.at(-1)?.body, { name: 'claude' }, 'unset flags are not sent');
});

t.test('create --wait follows the city stream from event_cursor to its own terminal event', async (t) => {
  const { stub, env } = await setup(t);
  stub.add();
  stub.emit('session.woke', 'gc-1', {});
  const ok = await runGc(['session', 'create', 'mayor', '--alias', 'boss', '--wait'], { env });
  t.equal(ok.code, 0, ok.stderr);
  t.equal(ok.stderr, '', 'no progress when stderr is not a terminal');
  const lines = jsonLines(ok.stdout);
  t.match(lines, [
    {
      type: 'request.result.session.create',
      payload: { request_id: 'req-00000001', session: { id: 'gc-2', alias: 'boss', template: 'mayor' } },
    },
  ]);
  const stream = stub.received.find((r) => r.path === '/v0/city/town/events/stream');
  t.same(stream?.query, { after_seq: '1' }, 'after_seq is the 202 event_cursor');

  stub.nextOutcome = { ok: false, code: 'provider_not_ready', message: 'mock is not on PATH' };
  const bad = await runGc(['session', 'create', 'mayor', '--wait'], { env });
  t.equal(bad.code, 1);
  t.match(jsonLines(bad.stdout), [
    { type: 'request.failed', payload: { request_id: 'req-00000002', error_code: 'provider_not_ready' } },
  ]);
  t.equal(bad.stderr, 'gc session create: provider_not_ready: mock is not on PATH\n');
});

t.test('create refusals: a Problem with its fields, a bad --kind, a time-out', async (t) => {
  const { stub, env } = await setup(t);
  stub.problems.set('POST /sessions', {
    status: 422,
    detail: 'invalid: validation failed',
    errors: [{ location: 'body.kind', message: 'must be agent or provider' }],
  });
  const invalid = await runGc(['session', 'create', 'mayor', '--wait'], { env });
  t.same(failure(invalid), [
    1,
    '',
    'gc session create: invalid: validation failed (body.kind: must be agent or provider)\n',
  ]);
  stub.problems.clear();
  const kind = await runGc(['session', 'create', 'mayor', '--kind', 'robot'], { env });
  t.same([kind.code, kind.stdout], [1, '']);
  t.match(kind.stderr, /^gc session create: .*robot.*; see "gc session create --help"\n$/);
  stub.workMs = 5000;
  const slow = await runGc(['session', 'create', 'mayor', '--wait', '--timeout', '300ms'], { env });
  t.same(failure(slow), [
    1,
    '',
    'gc session create: timed out waiting for req-00000001; it may still finish: gc events --city town --follow --after 0\n',
  ]);
  const zero = await runGc(['session', 'create', 'mayor', '--wait', '--timeout', '0s'], { env });
  t.same(failure(zero), [1, '', 'gc session create: invalid --timeout "0s": must be greater than 0\n']);
});

t.test('on a terminal, create --wait notes the acceptance and the session events on stderr', async (t) => {
  const { env } = await setup(t);
  // `script` gives gc a pseudo-terminal (stdout and stderr both land in its output).
  const out = await new Promise<string>((resolve, reject) => {
    const cmd = `${process.execPath} ${GC_BIN} session create mayor --wait`;
    const p = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    p.stdout.setEncoding('utf8').on('data', (s: string) => (text += s));
    p.once('error', reject);
    p.once('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}: ${text}`))));
  });
  t.match(out, /gc session create: accepted req-00000001; waiting for it to finish/);
  t.match(out, /gc session create: {3}event: session\.woke gc-1/);
  t.match(out, /"type":"request\.result\.session\.create"/);
});

t.test('send posts {message}; --wait prints request.result.session.message; empty text is 422', async (t) => {
  const { stub, env } = await setup(t);
  stub.add({ alias: 'boss' });
  const plain = await runGc(['session', 'send', 'boss', 'hello there'], { env });
  t.equal(plain.code, 0, plain.stderr);
  t.match(jsonLines(plain.stdout), [{ status: 'accepted', request_id: /^req-/, event_cursor: '0' }]);
  t.same(stub.mutations.at(-1), {
    method: 'POST',
    path: '/v0/city/town/session/boss/messages',
    query: {},
    header: 'gc',
    body: { message: 'hello there' },
  });
  const waited = await runGc(['session', 'send', 'gc-1', 'again', '--wait'], { env });
  t.equal(waited.code, 0, waited.stderr);
  t.match(jsonLines(waited.stdout), [
    { type: 'request.result.session.message', payload: { request_id: 'req-00000002', session_id: 'gc-1' } },
  ]);
  stub.nextOutcome = { ok: false, code: 'delivery_failed', message: 'session crashed' };
  const failed = await runGc(['session', 'send', 'gc-1', 'x', '--wait'], { env });
  t.same([failed.code, failed.stderr], [1, 'gc session send: delivery_failed: session crashed\n']);
  const empty = await runGc(['session', 'send', 'gc-1', ' '], { env });
  t.same(failure(empty), [
    1,
    '',
    'gc session send: invalid: validation failed (body.message: expected string to match pattern \\S)\n',
  ]);
  const missing = await runGc(['session', 'send', 'ghost', 'hi', '--wait'], { env });
  t.same(failure(missing), [1, '', 'gc session send: not_found: session not found: ghost\n']);
});

t.test('submit posts {message, intent}; --wait prints request.result.session.submit', async (t) => {
  const { stub, env } = await setup(t);
  stub.add();
  const plain = await runGc(['session', 'submit', 'gc-1', 'do it'], { env });
  t.equal(plain.code, 0, plain.stderr);
  t.same(stub.mutations.at(-1), {
    method: 'POST',
    path: '/v0/city/town/session/gc-1/submit',
    query: {},
    header: 'gc',
    body: { message: 'do it', intent: 'default' },
  });
  const waited = await runGc(['session', 'submit', 'gc-1', 'now', '--intent', 'interrupt_now', '--wait'], {
    env,
  });
  t.equal(waited.code, 0, waited.stderr);
  t.match(jsonLines(waited.stdout), [
    {
      type: 'request.result.session.submit',
      payload: { request_id: 'req-00000002', session_id: 'gc-1', intent: 'interrupt_now', queued: false },
    },
  ]);
  t.same(stub.mutations.at(-1)?.body, { message: 'now', intent: 'interrupt_now' });
  const bad = await runGc(['session', 'submit', 'gc-1', 'x', '--intent', 'later'], { env });
  t.same([bad.code, bad.stdout], [1, '']);
  t.match(bad.stderr, /^gc session submit: .*later.*; see "gc session submit --help"\n$/);
});

t.test(
  'stop, kill, wake, suspend and close print their answer; a refused one shows its detail',
  async (t) => {
    const { stub, env } = await setup(t);
    stub.add({ alias: 'boss' });
    for (const verb of ['stop', 'kill', 'wake']) {
      const r = await runGc(['session', verb, 'boss'], { env });
      t.same([r.code, r.stderr, jsonLines(r.stdout)], [0, '', [{ status: 'ok', id: 'gc-1' }]], verb);
      t.same(
        stub.mutations.at(-1),
        {
          method: 'POST',
          path: `/v0/city/town/session/boss/${verb}`,
          query: {},
          header: 'gc',
          body: undefined,
        },
        `${verb}: request`,
      );
    }
    const suspend = await runGc(['session', 'suspend', 'gc-1'], { env });
    t.same([suspend.code, jsonLines(suspend.stdout)], [0, [{ status: 'ok' }]]);
    const again = await runGc(['session', 'suspend', 'gc-1'], { env });
    t.same(failure(again), [1, '', 'gc session suspend: conflict: session gc-1 is already suspended\n']);
    const close = await runGc(['session', 'close', 'gc-1'], { env });
    t.same([close.code, jsonLines(close.stdout)], [0, [{ status: 'ok' }]]);
    t.same(stub.mutations.at(-1)?.query, {}, 'no delete unless asked');
    const del = await runGc(['session', 'close', 'gc-1', '--delete'], { env });
    t.equal(del.code, 0, del.stderr);
    t.match(stub.mutations.at(-1), { path: '/v0/city/town/session/gc-1/close', query: { delete: 'true' } });
    const ghost = await runGc(['session', 'kill', 'ghost'], { env });
    t.same(failure(ghost), [1, '', 'gc session kill: not_found: session not found: ghost\n']);
  },
);

t.test('rename posts {title}; --alias patches the session; neither is a usage error', async (t) => {
  const { stub, env } = await setup(t);
  stub.add();
  const title = await runGc(['session', 'rename', 'gc-1', 'release checklist'], { env });
  t.equal(title.code, 0, title.stderr);
  t.match(jsonLines(title.stdout), [{ id: 'gc-1', title: 'release checklist' }]);
  t.same(stub.mutations.at(-1), {
    method: 'POST',
    path: '/v0/city/town/session/gc-1/rename',
    query: {},
    header: 'gc',
    body: { title: 'release checklist' },
  });
  const alias = await runGc(['session', 'rename', 'gc-1', '--alias', 'rel'], { env });
  t.match(jsonLines(alias.stdout), [{ id: 'gc-1', alias: 'rel' }]);
  t.same(stub.mutations.at(-1), {
    method: 'PATCH',
    path: '/v0/city/town/session/gc-1',
    query: {},
    header: 'gc',
    body: { alias: 'rel' },
  });
  const both = await runGc(['session', 'rename', 'rel', 'T2', '--alias', ''], { env });
  t.equal(both.code, 0, both.stderr);
  t.same(stub.mutations.at(-1)?.body, { title: 'T2', alias: '' }, 'an empty alias is sent: it clears');
  t.notOk('alias' in jsonLines(both.stdout)[0]!);
  const neither = await runGc(['session', 'rename', 'gc-1'], { env });
  t.same(failure(neither), [
    1,
    '',
    'gc session rename: give a new <title>, --alias, or both; see "gc session rename --help"\n',
  ]);
});

t.test('every mutation carried X-GC-Request; without it the stub would have answered 403', async (t) => {
  const { stub, env } = await setup(t);
  stub.add();
  for (const args of [
    ['create', 'mayor'],
    ['send', 'gc-1', 'x'],
    ['submit', 'gc-1', 'x'],
    ['stop', 'gc-1'],
    ['kill', 'gc-1'],
    ['suspend', 'gc-1'],
    ['wake', 'gc-1'],
    ['rename', 'gc-1', 't'],
    ['rename', 'gc-1', '--alias', 'a'],
    ['close', 'gc-1'],
  ]) {
    const r = await runGc(['session', ...args], { env });
    t.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  t.equal(stub.mutations.length, 10);
  t.same(new Set(stub.mutations.map((m) => m.header)), new Set(['gc']));
  t.same(
    stub.received.filter((r) => r.method === 'GET').map((r) => r.header),
    [],
    'no reads were needed (the city came from GC_CITY)',
  );
});
