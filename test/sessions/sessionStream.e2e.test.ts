/**
 * Sessions II end to end: a real supervisor over HTTP, the real tmux runtime and the mock agent. A reply
 * shows on the session stream (woken by the log's file watch); `/mock think` shows in-turn, then idle;
 * `/mock approve` shows as a pending frame, in GET pending and in the city's list, a respond clears it and
 * the transcript records the decision (a message or submit meanwhile is a 409 `pending_interaction:`); a
 * reconnect with Last-Event-ID gets only what came after.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { beadStoreService } from '../../actors/beads/index.ts';
import { sessionServiceFactory } from '../../actors/sessions/startSessionService.ts';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import { openSse, type SseClient, type SseFrame } from '../helpers/sse.ts';
import { eventually, fakeHost, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
}

async function cityWithMock(t: Test) {
  const probe = await startTestSupervisor(t, { tickMs: 200 });
  await probe.close();
  const logDir = join(probe.root, 'agent-logs');
  const services = [
    beadStoreService,
    sessionServiceFactory({ runtime: 'tmux', thresholds: { tickMs: 100 }, env: { GC_MOCK_LOG_DIR: logDir } }),
  ];
  const s = await startTestSupervisor(t, {
    tickMs: 200,
    root: probe.root,
    options: { services, host: fakeHost(probe.home, { bins: ['sh', 'node'] }) },
  });
  t.teardown(() => {
    try {
      execFileSync('tmux', ['-L', tmuxSocketFor('port', s.gcHome), 'kill-server'], { stdio: 'ignore' });
    } catch {
      // no server left
    }
  });
  if (!existsSync(join(s.home, 'port', 'city.toml'))) {
    const res = await s.call('POST', '/v0/city', { dir: join(s.home, 'port'), provider: 'mock' });
    await waitForTerminal(s.log, res.body.request_id, 20_000);
  }
  await eventually(async () => (await s.call('GET', '/v0/city/port/sessions')).status === 200, 20_000);
  return { s, base: '/v0/city/port' };
}

/** The next frame (heartbeats skipped) that `match` accepts, within the deadline. */
async function frameWhere(
  sse: SseClient,
  match: (f: SseFrame) => boolean,
  timeoutMs = 15_000,
): Promise<SseFrame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const f = await sse.nextEvent(Math.max(1, deadline - Date.now()));
    if (match(f)) return f;
  }
}

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: the session stream is not tested end to end here');
} else {
  t.test(
    'stream, activity, approval and respond, transcript and resume on tmux with the mock agent',
    async (t) => {
      const { s, base } = await cityWithMock(t);
      const created = await s.call('POST', `${base}/sessions`, { alias: 'scribe', message: 'first words' });
      t.equal(created.status, 202);
      const events = await openSse(`${s.url}${base}/events/stream?after_seq=${created.body.event_cursor}`);
      const done = await frameWhere(
        events,
        (f) =>
          f.event === 'event' &&
          f.data.includes(created.body.request_id as string) &&
          /"type":"request\.(result\.session\.create|failed)"/.test(f.data),
        30_000,
      );
      events.close();
      t.match(JSON.parse(done.data), { type: 'request.result.session.create' });

      const missing = await openSse(`${s.url}${base}/session/ghost/stream`);
      t.equal(missing.status, 404, 'an unknown session is a problem before the 200');
      t.match(JSON.parse(missing.body), { detail: /^not_found: / });
      const badFormat = await openSse(`${s.url}${base}/session/scribe/stream?format=yaml`);
      t.equal(badFormat.status, 422);

      const sse = await openSse(`${s.url}${base}/session/scribe/stream`);
      t.teardown(() => sse.close());
      t.equal(sse.status, 200);
      t.equal(sse.headers['gc-session-state'], 'active');
      t.equal(sse.headers['gc-session-status'], undefined, 'running: no stopped status');
      const first = await frameWhere(sse, (f) => f.event === 'turn');
      t.match(JSON.parse(first.data), {
        template: 'mock',
        provider: 'mock',
        format: 'conversation',
        turns: [
          { role: 'user', text: 'first words' },
          { role: 'assistant', text: 'echo: first words' },
        ],
      });
      t.ok(first.id, 'turn frames carry the newest message uuid');

      // A reply appears on the stream (the log's watch wakes it; no fixed-interval poll of the log).
      const sent = await s.call('POST', `${base}/session/scribe/messages`, { message: 'ahoy' });
      t.equal(sent.status, 202);
      const reply = await frameWhere(sse, (f) => f.event === 'turn' && f.data.includes('echo: ahoy'));
      const afterAhoy = reply.id!;

      // Thinking: in-turn, then idle.
      await s.call('POST', `${base}/session/scribe/messages`, { message: '/mock think 600' });
      await frameWhere(sse, (f) => f.event === 'activity' && JSON.parse(f.data).activity === 'in-turn');
      await frameWhere(sse, (f) => f.event === 'activity' && JSON.parse(f.data).activity === 'idle');

      // An approval: pending on the stream, on GET pending and in the city list.
      await s.call('POST', `${base}/session/scribe/messages`, { message: '/mock approve Bash rm -rf build' });
      const pendingFrame = await frameWhere(sse, (f) => f.event === 'pending');
      const pending = JSON.parse(pendingFrame.data) as { request_id: string };
      t.match(pending, { kind: 'approval', prompt: 'Bash: rm -rf build', metadata: { tool_name: 'Bash' } });
      const one = await s.call('GET', `${base}/session/scribe/pending`);
      t.same(one.body, { supported: true, pending: JSON.parse(pendingFrame.data) });
      const city = await s.call('GET', `${base}/pending`);
      t.match(city.body, { total: 1, items: [{ request_id: pending.request_id, kind: 'approval' }] });
      // Text typed now would answer the prompt: messages and submits (default, follow_up) are refused with
      // nothing written (the city log's index does not move), as upstream refuses them.
      const indexBefore = one.headers.get('x-gc-index');
      for (const [path, body] of [
        ['messages', { message: 'are you there?' }],
        ['submit', { message: 'and now?', intent: 'default' }],
        ['submit', { message: 'later', intent: 'follow_up' }],
      ] as const) {
        const refused = await s.call('POST', `${base}/session/scribe/${path}`, body);
        t.equal(refused.status, 409, `${path} ${JSON.stringify(body)}`);
        t.match(refused.body.detail, /^pending_interaction: session \S+ is waiting for a response to tmux-/);
      }
      const still = await s.call('GET', `${base}/session/scribe/pending`);
      t.equal(still.headers.get('x-gc-index'), indexBefore, 'a refusal writes nothing');
      t.same(still.body, one.body, 'the prompt is still shown');
      const blocked = await s.call('POST', `${base}/session/scribe/respond`, {
        action: 'approve',
        request_id: 'tmux-0',
      });
      t.equal(blocked.status, 409);
      t.match(blocked.body.detail, /^invalid_interaction: /);

      const answered = await s.call('POST', `${base}/session/scribe/respond`, {
        action: 'approve',
        request_id: pending.request_id,
      });
      t.equal(answered.status, 202, JSON.stringify(answered.body));
      t.match(answered.body, { status: 'accepted' });
      t.same((await s.call('GET', `${base}/session/scribe/pending`)).body, { supported: true });
      t.same((await s.call('GET', `${base}/pending`)).body, { items: [], total: 0 });
      const none = await s.call('POST', `${base}/session/scribe/respond`, { action: 'deny' });
      t.match(none.body.detail, /^no_pending: /);
      await frameWhere(sse, (f) => f.event === 'turn' && f.data.includes('[result] Bash approved'));

      const transcript = await s.call('GET', `${base}/session/scribe/transcript`);
      t.equal(transcript.status, 200);
      const texts = (transcript.body.turns as Array<{ text: string }>).map((x) => x.text);
      t.ok(
        texts.includes('[Bash]') && texts.includes('[result] Bash approved'),
        'the decision is in the transcript',
      );
      t.match(transcript.body.pagination, { has_older_messages: false, total_compactions: 0 });
      const raw = await s.call('GET', `${base}/session/scribe/transcript?format=raw&limit=2`);
      t.equal(raw.body.messages.length, 2);
      t.match(raw.body.messages[1], { type: 'assistant', message: { stop_reason: 'end_turn' } });
      const after = await s.call('GET', `${base}/session/scribe/transcript?after=${afterAhoy}`);
      t.equal(after.body.turns[0].text, '/mock think 600');
      t.equal((await s.call('GET', `${base}/session/scribe/transcript?before=nope`)).status, 404);
      t.same((await s.call('GET', `${base}/session/scribe/agents`)).body, { agents: [] });

      // Resume: a reconnect with Last-Event-ID gets what came after, and nothing before.
      sse.close();
      const resumed = await openSse(`${s.url}${base}/session/scribe/stream`, { 'Last-Event-ID': afterAhoy });
      t.teardown(() => resumed.close());
      const next = await frameWhere(resumed, (f) => f.event === 'turn');
      const turns = JSON.parse(next.data).turns as Array<{ text: string }>;
      t.equal(turns[0]!.text, '/mock think 600', 'starts right after the resume point');
      t.notOk(
        turns.some((x) => x.text.includes('ahoy')),
        'nothing before it again',
      );
    },
  );
}
