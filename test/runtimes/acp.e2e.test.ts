/**
 * ACP end to end: a city whose city.toml says `[session] provider = "acp"` runs the mock agent's ACP form
 * under a real supervisor; a session answers over HTTP, its permission request is in GET pending, the city's
 * list and on its stream, respond answers it, and its screen shows the turn.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { beadStoreService } from '../../actors/beads/index.ts';
import { sessionServiceFactory } from '../../actors/sessions/startSessionService.ts';
import { openSse, type SseClient, type SseFrame } from '../helpers/sse.ts';
import { eventually, fakeHost, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

async function frameWhere(sse: SseClient, match: (f: SseFrame) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const f = await sse.nextEvent(Math.max(1, deadline - Date.now()));
    if (match(f)) return f;
  }
}

t.test('a city on ACP: prompts, a permission request answered by respond, the stream', async (t) => {
  const probe = await startTestSupervisor(t, { tickMs: 200 });
  await probe.close();
  const host = () => fakeHost(probe.home, { bins: ['sh', 'node'] });
  const first = await startTestSupervisor(t, { tickMs: 200, root: probe.root, options: { host: host() } });
  const created = await first.call('POST', '/v0/city', { dir: join(first.home, 'port'), provider: 'mock' });
  await waitForTerminal(first.log, created.body.request_id, 20_000);
  await first.close();
  appendFileSync(join(first.home, 'port', 'city.toml'), '\n[session]\nprovider = "acp"\n');

  const logDir = join(first.root, 'agent-logs');
  const services = [
    beadStoreService,
    sessionServiceFactory({ thresholds: { tickMs: 100 }, env: { GC_MOCK_LOG_DIR: logDir } }),
  ];
  const s = await startTestSupervisor(t, {
    tickMs: 200,
    root: first.root,
    options: { services, host: host() },
  });
  const base = '/v0/city/port';
  await eventually(async () => (await s.call('GET', `${base}/sessions`)).status === 200, 20_000);

  const made = await s.call('POST', `${base}/sessions`, { alias: 'talker', message: 'first words' });
  t.equal(made.status, 202, JSON.stringify(made.body));
  let view: { state?: string } = {};
  await eventually(async () => {
    view = (await s.call('GET', `${base}/session/talker?peek=true`)).body;
    return view.state === 'active';
  }, 20_000).catch(async (err: Error) => {
    const all = await s.call('GET', `${base}/sessions?state=all`);
    throw new Error(`${err.message}: ${JSON.stringify(view)} ${JSON.stringify(all.body)}`);
  });
  const sse = await openSse(`${s.url}${base}/session/talker/stream`);
  t.teardown(() => sse.close());
  const turn = await frameWhere(sse, (f) => f.event === 'turn' && f.data.includes('echo: first words'));
  t.match(JSON.parse(turn.data), { provider: 'mock', turns: [{ role: 'user', text: 'first words' }] });

  const asked = await s.call('POST', `${base}/session/talker/messages`, { message: '/mock approve Bash' });
  t.equal(asked.status, 202);
  const frame = await frameWhere(sse, (f) => f.event === 'pending');
  const pending = JSON.parse(frame.data) as { request_id: string };
  t.match(pending, {
    request_id: /^acp-call-/,
    kind: 'approval',
    options: ['Yes', "Yes, and don't ask again", 'No'],
    metadata: { tool_name: 'Bash', source: 'acp' },
  });
  t.same((await s.call('GET', `${base}/session/talker/pending`)).body, { supported: true, pending });
  t.match((await s.call('GET', `${base}/pending`)).body, {
    total: 1,
    items: [{ request_id: pending.request_id }],
  });
  const answered = await s.call('POST', `${base}/session/talker/respond`, {
    action: 'approve',
    request_id: pending.request_id,
  });
  t.match(answered, { status: 202, body: { status: 'accepted' } });
  t.same((await s.call('GET', `${base}/session/talker/pending`)).body, { supported: true });
  await frameWhere(sse, (f) => f.event === 'turn' && f.data.includes('approved'));
  await eventually(async () => {
    const view = await s.call('GET', `${base}/session/talker?peek=true`);
    return /approved\n❯$/.test(String(view.body.last_output ?? ''));
  }, 10_000);
  t.pass('the screen shows the answer and the prompt again');
});
