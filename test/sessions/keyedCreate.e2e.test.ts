/**
 * A keyed session create (`Idempotency-Key`) is answered once, also across a supervisor restart (and so a
 * failover): the key is kept in the city log with the session, not only in the process. A retry gets the
 * first 202 (same request id and cursor) and makes no second session, even with an alias the first one
 * took; the same key with another body is a 422.
 */
import t from 'tap';
import { cityWithMock, hasTmux } from './e2eKit.ts';

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: sessions are not tested end to end here');
} else {
  t.test('a keyed session create is answered once, across a restart too', async (t) => {
    const env = await cityWithMock(t);
    const body = { alias: 'bosun', title: 'keyed' };
    const keyed = { 'idempotency-key': 'create-bosun-1' };
    const first = await env.s.call('POST', `${env.base}/sessions`, body, keyed);
    t.equal(first.status, 202, JSON.stringify(first.body));
    const again = await env.s.call('POST', `${env.base}/sessions`, body, keyed);
    t.same(again.body, first.body, 'a retry in the same process gets the first 202');
    const root = env.s.root;
    await env.s.close();

    const next = await cityWithMock(t, root);
    const afterRestart = await next.s.call('POST', `${next.base}/sessions`, body, keyed);
    t.equal(afterRestart.status, 202, JSON.stringify(afterRestart.body));
    t.same(afterRestart.body, first.body, 'after a restart the retry still gets the first 202');
    const list = await next.s.call('GET', `${next.base}/sessions`);
    const named = (list.body.items as Array<{ alias?: string }>).filter((s) => s.alias === 'bosun');
    t.equal(named.length, 1, 'one session, not two');

    const other = await next.s.call('POST', `${next.base}/sessions`, { title: 'different' }, keyed);
    t.equal(other.status, 422, JSON.stringify(other.body));
    t.match(other.body.detail, /Idempotency-Key/);
    const unkeyed = await next.s.call('POST', `${next.base}/sessions`, { title: 'plain' });
    t.equal(unkeyed.status, 202, 'an unkeyed create is a new one');
    await next.s.close();
  });
}
