import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ConversationStub } from './helpers/conversationStub.ts';
import { GcProcess, isolatedEnv, jsonLines, runGc } from './helpers/gc.ts';

/**
 * `gc session transcript|logs|pending|respond` as the built binary against a stub of the conversation
 * routes: what each command asks for and what it prints (JSON Lines only on stdout), a followed stream that
 * drops and resumes with Last-Event-ID without printing anything twice, and the Problems passed through.
 */

t.setTimeout(5 * 60_000);

async function setup(t: Test): Promise<{ stub: ConversationStub; env: NodeJS.ProcessEnv }> {
  const stub = await new ConversationStub().listen();
  t.teardown(() => stub.close());
  const home = await mkdtemp(join(tmpdir(), 'gc-cli-conversation-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  return { stub, env: isolatedEnv(home, { GC_API: stub.url, GC_CITY: 'town' }) };
}

const result = (r: { code: number | null; stdout: string; stderr: string }): unknown[] => [
  r.code,
  r.stdout,
  r.stderr,
];

t.test(
  'transcript prints each turn as one JSON line; --tail, --before and --raw go in the query',
  async (t) => {
    const { stub, env } = await setup(t);
    stub.say('user', 'hello');
    stub.say('assistant', 'hi there');
    const r = await runGc(['session', 'transcript', 'mayor'], { env });
    t.same(result(r), [0, '{"role":"user","text":"hello"}\n{"role":"assistant","text":"hi there"}\n', '']);
    t.match(stub.received.at(-1), {
      method: 'GET',
      path: '/v0/city/town/session/mayor/transcript',
      query: {},
    });

    stub.pagination = {
      has_older_messages: true,
      total_message_count: 9,
      returned_message_count: 2,
      truncated_before_message: 'u1',
      total_compactions: 0,
    };
    const paged = await runGc(['session', 'transcript', 'gc-1', '--tail', '1', '--before', 'u7'], { env });
    t.equal(paged.code, 0, paged.stderr);
    t.same(stub.received.at(-1)?.query, { tail: '1', before: 'u7' });
    t.equal(
      paged.stderr,
      'gc session transcript: older messages: gc session transcript gc-1 --before u1\n',
      'how to read the older page goes to stderr',
    );

    const raw = await runGc(['session', 'transcript', 'gc-1', '--raw'], { env });
    t.same(
      jsonLines(raw.stdout),
      stub.entries.map((e) => e.raw),
      'raw entries verbatim, one per line',
    );
    t.same(stub.received.at(-1)?.query, { format: 'raw' });

    const unknown = await runGc(['session', 'transcript', 'ghost'], { env });
    t.same(result(unknown), [1, '', 'gc session transcript: not_found: session not found: ghost\n']);
    const both = await runGc(['session', 'transcript', 'gc-1', '--follow', '--tail', '1'], { env });
    t.same([both.code, both.stdout], [1, '']);
    t.match(
      both.stderr,
      /^gc session transcript: --follow=true cannot also be provided when using --tail; see "gc session transcript --help"\n$/,
    );
  },
);

t.test(
  'transcript --follow prints turn frames only, and resumes after a drop with Last-Event-ID, nothing twice',
  async (t) => {
    const { stub, env } = await setup(t);
    stub.say('user', 'one');
    stub.pending = { request_id: 'tmux-1', kind: 'approval' };
    const gc = new GcProcess(['session', 'transcript', 'mayor', '--follow'], { env });
    t.teardown(() => gc.stop());
    await gc.waitForLines(1);
    await gc.until(() => stub.connections === 1, 5000, 'the stream is open');
    stub.say('assistant', 'two');
    await gc.waitForLines(2);
    stub.endStreams();
    await gc.waitForStderr(/stream ended, reconnecting in 1s/);
    stub.say('assistant', 'three (while disconnected)');
    await gc.waitForLines(3);
    t.same(
      stub.streamRequests.map((r) => r.lastEventId),
      [undefined, 'u2'],
      'the reconnect resumes after the last frame',
    );
    const frames = jsonLines(gc.stdout());
    t.same(
      frames.map((f) => (f.turns as { text: string }[]).map((x) => x.text)),
      [['one'], ['two'], ['three (while disconnected)']],
      'each frame once; activity, pending and heartbeat frames are not printed',
    );
    t.match(frames[0], { id: 'gc-1', template: 'mayor', provider: 'mock', format: 'conversation' });
    const end = await gc.stop();
    t.same([end.code, end.signal], [0, null], 'an interrupt ends the follow quietly');
  },
);

t.test(
  'transcript --follow --raw prints message frames; a closed session ends after its snapshot',
  async (t) => {
    const { stub, env } = await setup(t);
    stub.say('user', 'one');
    stub.say('assistant', 'two');
    stub.state = 'closed';
    const r = await runGc(['session', 'transcript', 'gc-1', '--follow', '--raw'], { env });
    t.equal(r.code, 0, r.stderr);
    t.same(jsonLines(r.stdout), [
      {
        id: 'gc-1',
        template: 'mayor',
        provider: 'mock',
        format: 'raw',
        messages: stub.entries.map((e) => e.raw),
      },
    ]);
    t.same(
      stub.streamRequests.map((q) => q.query),
      [{ format: 'raw' }],
      'one connection, no reconnect',
    );
    t.equal(r.stderr, '');
    const gone = await runGc(['session', 'transcript', 'ghost', '--follow'], { env });
    t.same(result(gone), [1, '', 'gc session transcript: not_found: session not found: ghost\n']);
  },
);

t.test(
  'logs prints one turn per line; --tail keeps the last n; --follow then prints new turns',
  async (t) => {
    const { stub, env } = await setup(t);
    for (const text of ['a', 'b', 'c']) stub.say('assistant', text);
    const all = await runGc(['session', 'logs', 'mayor'], { env });
    t.same(
      jsonLines(all.stdout),
      stub.entries.map((e) => e.turn),
    );
    const two = await runGc(['session', 'logs', 'mayor', '--tail', '2'], { env });
    t.same(
      jsonLines(two.stdout).map((x) => x.text),
      ['b', 'c'],
    );
    const many = await runGc(['session', 'logs', 'mayor', '--tail', '9'], { env });
    t.same(jsonLines(many.stdout).length, 3, 'a tail longer than the log is the whole log');

    const gc = new GcProcess(['session', 'logs', 'mayor', '--follow', '--tail', '1'], { env });
    t.teardown(() => gc.stop());
    await gc.waitForLines(1);
    await gc.until(() => stub.connections === 1, 5000, 'the stream is open');
    stub.say('user', 'd');
    stub.say('assistant', 'e');
    await gc.waitForLines(3);
    t.same(jsonLines(gc.stdout()), [
      { role: 'assistant', text: 'c' },
      { role: 'user', text: 'd' },
      { role: 'assistant', text: 'e' },
    ]);
    t.equal((await gc.stop()).code, 0);
    t.equal(gc.stderr, '');
  },
);

t.test('pending prints one session’s prompt, or every waiting session of the city', async (t) => {
  const { stub, env } = await setup(t);
  const none = await runGc(['session', 'pending', 'mayor'], { env });
  t.same(result(none), [0, '', ''], 'no prompt: nothing printed');
  const noneInCity = await runGc(['session', 'pending'], { env });
  t.same(result(noneInCity), [0, '', '']);
  stub.pending = {
    request_id: 'tmux-0123456789abcdef',
    kind: 'approval',
    prompt: 'Bash: ls',
    options: ['Yes', "Yes, and don't ask again", 'No'],
    metadata: { tool_name: 'Bash', source: 'tmux' },
  };
  const one = await runGc(['session', 'pending', 'mayor'], { env });
  t.same(result(one), [0, JSON.stringify(stub.pending) + '\n', '']);
  t.equal(stub.received.at(-1)?.path, '/v0/city/town/session/mayor/pending');
  const city = await runGc(['session', 'pending'], { env });
  t.same(jsonLines(city.stdout), [
    { session_id: 'gc-1', request_id: 'tmux-0123456789abcdef', kind: 'approval' },
  ]);
  t.equal(stub.received.at(-1)?.path, '/v0/city/town/pending');
});

t.test('respond posts the action with its request id and text; refusals are one line', async (t) => {
  const { stub, env } = await setup(t);
  const nothing = await runGc(['session', 'respond', 'mayor', 'approve'], { env });
  t.same(result(nothing), [
    1,
    '',
    'gc session respond: no_pending: session gc-1 has no pending interaction\n',
  ]);
  stub.pending = { request_id: 'tmux-1', kind: 'approval' };
  const wrong = await runGc(['session', 'respond', 'mayor', 'deny', '--request-id', 'tmux-2'], { env });
  t.same(result(wrong), [1, '', 'gc session respond: invalid_interaction: request tmux-2 is not pending\n']);
  const ok = await runGc(
    ['session', 'respond', 'mayor', 'answer', '--text', 'No', '--request-id', 'tmux-1'],
    {
      env,
    },
  );
  t.same(result(ok), [0, '{"status":"accepted","id":"gc-1"}\n', '']);
  t.same(
    stub.received.filter((r) => r.method === 'POST').map((r) => [r.path, r.header, r.body]),
    [
      ['/v0/city/town/session/mayor/respond', 'gc', { action: 'approve' }],
      ['/v0/city/town/session/mayor/respond', 'gc', { action: 'deny', request_id: 'tmux-2' }],
      ['/v0/city/town/session/mayor/respond', 'gc', { action: 'answer', request_id: 'tmux-1', text: 'No' }],
    ],
  );
  const posts = stub.received.length;
  const noText = await runGc(['session', 'respond', 'mayor', 'answer'], { env });
  t.same(result(noText), [
    1,
    '',
    'gc session respond: answer needs --text (an option\'s label or number); see "gc session respond --help"\n',
  ]);
  const bad = await runGc(['session', 'respond', 'mayor', 'maybe'], { env });
  t.same([bad.code, bad.stdout], [1, '']);
  t.match(
    bad.stderr,
    /^gc session respond: Expected maybe to be one of: approve, approve_always, deny, answer; /,
  );
  t.equal(stub.received.length, posts, 'a usage error sends nothing');
});
