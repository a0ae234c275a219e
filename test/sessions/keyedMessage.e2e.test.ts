/**
 * A keyed session message (`Idempotency-Key`) is delivered once, also across a supervisor restart (and so a
 * failover): its key and first 202 are kept with the session in the city log, not only in the process. A
 * retry, concurrent, later or after the restart, gets the first 202 and writes nothing; the same key with
 * another message is a 422 and writes nothing either.
 */
import t from 'tap';
import { eventually } from '../helpers/supervisor.ts';
import { cityWithMock, conversation, hasTmux, terminalOnStream, type Env } from './e2eKit.ts';

/** The city log's index (X-GC-Index): unchanged across a call when the call wrote nothing. */
async function cityIndex(env: Env): Promise<string> {
  const res = await env.s.call('GET', `${env.base}/events?limit=1`);
  return res.headers.get('x-gc-index') ?? '';
}

async function deliveredResults(env: Env): Promise<Array<{ payload: { request_id: string } }>> {
  const res = await env.s.call('GET', `${env.base}/events?type=request.result.session.message&limit=500`);
  return res.body.items as Array<{ payload: { request_id: string } }>;
}

const echoes = (logDir: string, text: string): number =>
  conversation(logDir)
    .split('\n')
    .filter((line) => line.includes(`echo: ${text}`)).length;

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: sessions are not tested end to end here');
} else {
  t.test('a keyed message is delivered once, across a restart too', async (t) => {
    const env = await cityWithMock(t);
    const created = await env.s.call('POST', `${env.base}/sessions`, { alias: 'lookout', title: 'keyed' });
    t.equal(created.status, 202, JSON.stringify(created.body));
    const made = await terminalOnStream(env, created.body.event_cursor, created.body.request_id);
    t.equal(made.type, 'request.result.session.create', JSON.stringify(made.payload));
    const id = (made.payload.session as { id: string }).id;
    const path = `${env.base}/session/${id}/messages`;
    const body = { message: 'land ho once' };
    const keyed = { 'idempotency-key': 'msg-land-ho-1' };

    const [first, concurrent] = await Promise.all([
      env.s.call('POST', path, body, keyed),
      env.s.call('POST', path, body, keyed),
    ]);
    t.equal(first.status, 202, JSON.stringify(first.body));
    t.same(concurrent.body, first.body, 'a retry while the first is in flight gets the same 202');
    const again = await env.s.call('POST', path, body, keyed);
    t.same(again.body, first.body, 'a retry in the same process gets the first 202');
    const done = await terminalOnStream(env, first.body.event_cursor, first.body.request_id);
    t.equal(done.type, 'request.result.session.message', JSON.stringify(done.payload));
    await eventually(() => echoes(env.logDir, body.message) === 1, 10_000);
    const root = env.s.root;
    await env.s.close();

    const next = await cityWithMock(t, root);
    await eventually(
      async () => (await next.s.call('GET', `${next.base}/session/${id}`)).body.running === true,
      20_000,
    );
    const before = await cityIndex(next);
    const afterRestart = await next.s.call('POST', path, body, keyed);
    t.equal(afterRestart.status, 202, JSON.stringify(afterRestart.body));
    t.same(afterRestart.body, first.body, 'after a restart the retry still gets the first 202');
    t.equal(await cityIndex(next), before, 'the retry wrote nothing');

    const other = await next.s.call('POST', path, { message: 'another text' }, keyed);
    t.equal(other.status, 422, JSON.stringify(other.body));
    t.match(other.body.detail, /Idempotency-Key/);
    t.equal(await cityIndex(next), before, 'the refused body wrote nothing');

    // An unkeyed message after them: once it is answered, a second delivery of the keyed one would be too.
    const fence = await next.s.call('POST', path, { message: 'fence after' });
    t.equal(fence.status, 202, 'an unkeyed message is a new one');
    const fenced = await terminalOnStream(next, fence.body.event_cursor, fence.body.request_id);
    t.equal(fenced.type, 'request.result.session.message', JSON.stringify(fenced.payload));
    await eventually(() => echoes(next.logDir, 'fence after') === 1, 10_000);
    const results = (await deliveredResults(next)).filter(
      (e) => e.payload.request_id !== fence.body.request_id,
    );
    t.same(
      results.map((e) => e.payload.request_id),
      [first.body.request_id],
      'exactly one request.result.session.message for the keyed message',
    );
    t.equal(echoes(next.logDir, body.message), 1, 'the agent got the text once');
    await next.s.close();
  });
}
