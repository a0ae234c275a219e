/** Sessions end to end over HTTP on tmux with the mock agent (set-up in e2eKit.ts). */
import t from 'tap';
import { readFileSync, rmSync } from 'node:fs';
import { variantSuffix } from '../../schemas/eventCatalog.ts';
import { docValidator } from '../helpers/schemaValidator.ts';
import { eventually } from '../helpers/supervisor.ts';
import { cityWithMock, conversation, hasTmux, terminalOnStream, UPSTREAM_OPENAPI } from './e2eKit.ts';

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: sessions are not tested end to end here');
} else {
  t.test(
    'create, message, submit, list, get, stop, kill, suspend, wake, close on tmux with the mock agent',
    async (t) => {
      const env = await cityWithMock(t);
      const { s, base } = env;

      const created = await s.call('POST', `${base}/sessions`, { alias: 'deckhand', title: 'first mate' });
      t.equal(created.status, 202, JSON.stringify(created.body));
      t.equal(created.body.status, 'accepted');
      const result = await terminalOnStream(env, created.body.event_cursor, created.body.request_id);
      t.equal(result.type, 'request.result.session.create', JSON.stringify(result.payload));
      const session = result.payload.session as Record<string, unknown>;
      t.equal(session.state, 'active', 'the result carries the session once it left creating');
      t.equal(session.running, true);
      t.equal(session.alias, 'deckhand');
      const id = session.id as string;

      const byAlias = await s.call('GET', `${base}/session/deckhand`);
      t.equal(byAlias.status, 200);
      t.equal(byAlias.body.id, id, 'resolved by alias');
      t.equal(
        (await s.call('GET', `${base}/session/${session.session_name as string}`)).body.id,
        id,
        'and by name',
      );
      t.equal((await s.call('GET', `${base}/session/nobody`)).status, 404);

      const list = await s.call('GET', `${base}/sessions`);
      t.equal(list.body.total, 1);
      t.ok(list.headers.get('x-gc-index'), 'X-GC-Index');

      const msg = await s.call('POST', `${base}/session/${id}/messages`, { message: 'hello there' });
      t.equal(msg.status, 202);
      const delivered = await terminalOnStream(env, msg.body.event_cursor, msg.body.request_id);
      t.equal(delivered.type, 'request.result.session.message');
      await eventually(() => conversation(env.logDir).includes('echo: hello there'), 10_000);
      t.pass('the agent answered in its conversation log');

      const sub = await s.call('POST', `${base}/session/${id}/submit`, {
        message: 'again',
        intent: 'interrupt_now',
      });
      t.equal(sub.status, 202);
      const submitted = await terminalOnStream(env, sub.body.event_cursor, sub.body.request_id);
      t.equal(submitted.type, 'request.result.session.submit');
      t.equal(submitted.payload.intent, 'interrupt_now');
      t.equal(submitted.payload.queued, false);

      t.equal(
        (await s.call('POST', `${base}/session/${id}/messages`, { message: '' })).status,
        422,
        'empty message',
      );

      const stop = await s.call('POST', `${base}/session/${id}/stop`);
      t.same(stop.body, { status: 'ok', id }, 'stop interrupts the turn, the session stays');

      // kill: the process ends, the state stays, the reconciler starts it again (no crash counted)
      const woke = (await s.call('GET', `${base}/events?type=session.woke`)).body.total as number;
      t.equal((await s.call('POST', `${base}/session/${id}/kill`)).status, 200);
      await eventually(
        async () => (await s.call('GET', `${base}/events?type=session.woke`)).body.total > woke,
        20_000,
      );
      await eventually(
        async () => (await s.call('GET', `${base}/session/${id}`)).body.running === true,
        20_000,
      );
      t.pass('restarted after the kill');
      const crashed = await s.call('GET', `${base}/events?type=session.crashed`);
      t.equal(crashed.body.total, 0, 'a kill is not a crash');

      t.equal((await s.call('POST', `${base}/session/${id}/suspend`)).status, 200);
      const suspended = await s.call('GET', `${base}/session/${id}`);
      t.equal(suspended.body.state, 'suspended');
      t.equal(suspended.body.running, false);
      t.equal(
        (await s.call('POST', `${base}/session/${id}/suspend`)).status,
        409,
        'suspend twice is a conflict',
      );
      const refused = await s.call('POST', `${base}/session/${id}/messages`, { message: 'hi' });
      t.equal(refused.status, 409, 'a suspended session takes no message');
      t.match(refused.body.detail, /^conflict:/);

      t.equal((await s.call('POST', `${base}/session/${id}/wake`)).status, 200);
      await eventually(
        async () => (await s.call('GET', `${base}/session/${id}`)).body.state === 'active',
        20_000,
      );
      t.pass('woken');

      const renamed = await s.call('POST', `${base}/session/${id}/rename`, { title: 'captain' });
      t.equal(renamed.body.title, 'captain');

      t.equal((await s.call('POST', `${base}/session/${id}/close`)).status, 200);
      const closed = await s.call('GET', `${base}/session/${id}`);
      t.equal(closed.body.state, 'closed');
      t.equal(
        (await s.call('POST', `${base}/session/${id}/wake`)).status,
        409,
        'a closed session cannot wake',
      );
      const types = ((await s.call('GET', `${base}/events?limit=500`)).body.items as { type: string }[]).map(
        (e) => e.type,
      );
      // Every event of the run, as the city list serves it, against upstream's own OpenAPI document.
      const upstream = JSON.parse(readFileSync(UPSTREAM_OPENAPI, 'utf8')) as {
        components: { schemas: Record<string, unknown> };
      };
      const validator = docValidator(upstream, { $id: 'events.json' });
      const all = (await s.call('GET', `${base}/events?limit=500`)).body.items as { type: string }[];
      let checked = 0;
      for (const e of all) {
        const name = `TypedEventStreamEnvelope${variantSuffix(e.type)}`;
        if (!upstream.components.schemas[name]) continue;
        checked++;
        t.same(validator.component(name, e), [], `${e.type} is a valid upstream ${name}`);
      }
      t.ok(checked >= 10, `${checked} events checked against upstream's schemas`);
      for (const type of [
        'session.woke',
        'session.stopped',
        'session.suspended',
        'session.draining',
        'bead.closed',
      ])
        t.ok(types.includes(type), `${type} recorded`);
    },
  );

  t.test('a crashing agent is restarted with back-off, then quarantined', async (t) => {
    const env = await cityWithMock(t);
    const { s, base } = env;
    const created = await s.call('POST', `${base}/sessions`, {});
    const result = await terminalOnStream(env, created.body.event_cursor, created.body.request_id);
    const id = (result.payload.session as { id: string }).id;
    // Each start dies at once: the mock agent crashes on this directive. A message that lands while the
    // session sleeps wakes it first, and a wake that resumes a conversation the crash cut short is a stale
    // key (not a crash), so how many directives make five crashes varies: send them until it is quarantined.
    const deadline = Date.now() + 45_000;
    let state = '';
    while (Date.now() < deadline) {
      state = (await s.call('GET', `${base}/session/${id}`)).body.state as string;
      if (state === 'quarantined') break;
      await s.call('POST', `${base}/session/${id}/messages`, { message: '/mock crash 3' });
      await new Promise((r) => setTimeout(r, 300));
    }
    t.equal(state, 'quarantined', 'quarantined after repeated crashes');
    const q = await s.call('GET', `${base}/events?type=session.quarantined`);
    t.equal(q.body.total, 1, 'session.quarantined once');
    const crashes = await s.call('GET', `${base}/events?type=session.crashed`);
    t.ok(crashes.body.total >= 1, `${crashes.body.total} crashes recorded`);
    t.equal((await s.call('GET', `${base}/session/${id}`)).body.reason, 'quarantine');
  });

  t.test('sessions on tmux outlive a supervisor restart and are adopted, not started again', async (t) => {
    const env = await cityWithMock(t);
    const created = await env.s.call('POST', `${env.base}/sessions`, {});
    const result = await terminalOnStream(env, created.body.event_cursor, created.body.request_id);
    const session = result.payload.session as { id: string; session_name: string };
    const root = env.s.root;
    await env.s.close(); // sessions on tmux outlive the supervisor
    const again = await cityWithMock(t, root);
    await eventually(
      async () => (await again.s.call('GET', `${again.base}/session/${session.id}`)).body.running === true,
      20_000,
    );
    const woke = await again.s.call('GET', `${again.base}/events?type=session.woke`);
    t.equal(woke.body.total, 1, 'adopted, not started a second time');
    const terminals = await again.s.call('GET', `${again.base}/events?type=request.result.session.create`);
    t.equal(terminals.body.total, 1, 'exactly one terminal event');
    rmSync(env.logDir, { recursive: true, force: true });
  });
}
