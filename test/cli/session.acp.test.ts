/**
 * Every session operation and stream on ACP, end to end through the built `gc` against a real supervisor
 * process (`gc supervisor run`): an agent with `session = "acp"` whose city provider declares
 * `supports_acp = true` runs the mock ACP agent. create (with a first message), list, send, show --peek,
 * transcript (the conversation the ACP updates told: the agent's log is kept where no locator looks) and its
 * follow stream, pending (the session's and the city's) and respond, stop (an interrupt: session/cancel),
 * a supervisor restart (the session restarts and reattaches its ACP session with session/load, its history
 * replayed), close.
 */
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { mockAcpAgentPath } from '../../actors/sessions/runtime/presets.ts';
import { GcProcess, jsonLines, runGc } from './helpers/gc.ts';
import { startSupervisorProc } from './helpers/supervisorProc.ts';

t.setTimeout(4 * 60_000);

/** Polls `check` every 100 ms until it holds (the supervisor acts on its own tick). */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

t.test('gc drives an ACP session through every operation', async (t) => {
  const scratch = await mkdtemp(join(tmpdir(), 'gc-cli-acp-'));
  t.teardown(() => rm(scratch, { recursive: true, force: true }));
  const logDir = join(scratch, 'agent-logs');
  const sup = await startSupervisorProc(t, {
    env: { GC_SESSION_RUNTIME: 'subprocess', HOME: join(scratch, 'home'), GC_MOCK_LOG_DIR: '' },
  });
  const CITY = 'acpcity';
  const created = await sup.call('POST', '/v0/city', { dir: join(sup.cities, CITY), provider: 'mock' });
  t.equal(created.status, 202, JSON.stringify(created.body));
  const base = `/v0/city/${CITY}`;
  await eventually('the city', async () =>
    (await sup.call('GET', `${base}/sessions`)).status === 200 ? true : undefined,
  );
  await sup.stop();
  await appendFile(
    join(sup.cities, CITY, 'city.toml'),
    [
      '',
      '[providers.acpmock]',
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(mockAcpAgentPath())}, "--log-dir", ${JSON.stringify(logDir)}]`,
      'supports_acp = true',
      '',
      '[[agent]]',
      'name = "talker"',
      'provider = "acpmock"',
      'session = "acp"',
      '',
    ].join('\n'),
  );
  await sup.start();
  await eventually('the city again', async () =>
    (await sup.call('GET', `${base}/sessions`)).status === 200 ? true : undefined,
  );
  const gc = (...args: string[]) => runGc([...args, '--city', CITY], { env: sup.env, killAfterMs: 60_000 });
  const ok = async (...args: string[]) => {
    const r = await gc(...args);
    t.equal(r.code, 0, `gc ${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  const transcript = async () => jsonLines((await ok('session', 'transcript', 't1')).stdout);

  // create (new) with a first message: the ACP agent's first prompt.
  const made = await ok(
    'session',
    'create',
    'talker',
    '--kind',
    'agent',
    '--alias',
    't1',
    '--message',
    'first words',
    '--wait',
  );
  t.match(jsonLines(made.stdout).at(-1), { type: 'request.result.session.create' });
  const listed = jsonLines((await ok('session', 'list', '--json')).stdout);
  t.match(listed, [{ alias: 't1', template: 'talker', state: 'active' }]);

  // transcript: the conversation the ACP updates told.
  const first = await eventually('the first answer', async () => {
    const turns = await transcript();
    return turns.some((x) => x.text === 'echo: first words') ? turns : undefined;
  });
  t.match(first, [
    { role: 'user', text: 'first words' },
    { role: 'assistant', text: 'echo: first words' },
  ]);

  // send (a prompt) and show --peek (the screen).
  await ok('session', 'send', 't1', 'second', '--wait');
  const peeked = await eventually('the second answer on the screen', async () => {
    const view = jsonLines((await ok('session', 'show', 't1', '--peek', '--peek-lines', '20')).stdout)[0]!;
    return ((view.last_output as string | undefined) ?? '').includes('echo: second') ? view : undefined;
  });
  t.match(String(peeked.last_output), /❯ second\necho: second/);

  // The follow stream, then a permission request: pending (session and city), respond.
  const follow = new GcProcess(['session', 'transcript', 't1', '-f', '--city', CITY], { env: sup.env });
  t.teardown(() => follow.stop());
  await follow.until(() => follow.stdout().includes('echo: second'), 30_000, 'the stream catching up');
  await ok('session', 'send', 't1', '/mock approve Bash', '--wait');
  const pending = await eventually('the permission request', async () => {
    const lines = jsonLines((await ok('session', 'pending', 't1')).stdout);
    return lines[0];
  });
  t.match(pending, {
    request_id: /^acp-call-/,
    kind: 'approval',
    options: ['Yes', "Yes, and don't ask again", 'No'],
    metadata: { tool_name: 'Bash', source: 'acp' },
  });
  t.match(jsonLines((await ok('session', 'pending')).stdout), [{ request_id: pending.request_id }]);
  await ok('session', 'respond', 't1', 'approve', '--request-id', String(pending.request_id));
  await follow.until(() => follow.stdout().includes('approved'), 30_000, 'the answer on the stream');
  t.same(jsonLines((await ok('session', 'pending', 't1')).stdout), [], 'nothing pending any more');
  t.match((await transcript()).slice(-3), [
    { role: 'user', text: '/mock approve Bash' },
    { role: 'assistant', text: '[Bash]' },
    { role: 'assistant', text: 'approved' },
  ]);

  // stop = interrupt the turn (session/cancel); the session stays.
  await ok('session', 'send', 't1', '/mock think 60000', '--wait');
  await eventually('the thought', async () =>
    (await transcript()).some((x) => x.text === '[thinking]') ? true : undefined,
  );
  t.match(jsonLines((await ok('session', 'stop', 't1')).stdout)[0], { status: 'ok' });
  await eventually('the interrupted turn', async () =>
    (await transcript()).some((x) => x.text === 'interrupted') ? true : undefined,
  );
  t.match(jsonLines((await ok('session', 'list', '--json')).stdout), [{ alias: 't1', state: 'active' }]);
  await follow.stop();

  // A supervisor restart: the session starts again and reattaches its ACP session (session/load).
  await sup.stop();
  await sup.start();
  const replayed = await eventually(
    'the restarted session with its history',
    async () => {
      const r = await gc('session', 'show', 't1', '--peek', '--peek-lines', '40');
      if (r.code !== 0) return undefined;
      const view = jsonLines(r.stdout)[0]!;
      return view.running === true &&
        ((view.last_output as string | undefined) ?? '').includes('❯ first words')
        ? view
        : undefined;
    },
    60_000,
  );
  t.match(
    String(replayed.last_output),
    /❯ first words\necho: first words/,
    'the history replayed by session/load',
  );
  t.match((await transcript()).slice(0, 2), [
    { role: 'user', text: 'first words' },
    { role: 'assistant', text: 'echo: first words' },
  ]);
  await ok('session', 'send', 't1', 'after the restart', '--wait');
  await eventually('an answer after the restart', async () =>
    (await transcript()).some((x) => x.text === 'echo: after the restart') ? true : undefined,
  );

  // close: the process ends, the session is closed for good.
  t.match(jsonLines((await ok('session', 'close', 't1')).stdout)[0], { status: 'ok' });
  await eventually('closed', async () => {
    const all = jsonLines((await ok('session', 'list', '--json', '--state', 'closed')).stdout);
    return all.some((s) => s.alias === 't1') ? true : undefined;
  });
});
