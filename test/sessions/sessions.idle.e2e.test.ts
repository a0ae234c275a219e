/** Idle timeout end to end on tmux with the mock agent (set-up in e2eKit.ts). */
import t from 'tap';
import { eventually } from '../helpers/supervisor.ts';
import { cityWithMock, conversation, hasTmux, terminalOnStream } from './e2eKit.ts';

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: sessions are not tested end to end here');
} else {
  t.test('an idle session is stopped past the idle timeout, and a message wakes it again', async (t) => {
    const env = await cityWithMock(t, undefined, { idleTimeoutMs: 1_500 });
    const { s, base } = env;
    const created = await s.call('POST', `${base}/sessions`, {});
    const result = await terminalOnStream(env, created.body.event_cursor, created.body.request_id);
    const id = (result.payload.session as { id: string }).id;
    await eventually(
      async () => (await s.call('GET', `${base}/events?type=session.idle_killed`)).body.total === 1,
      20_000,
    );
    const asleep = await s.call('GET', `${base}/session/${id}`);
    t.equal(asleep.body.state, 'asleep');
    t.equal(asleep.body.reason, 'idle-timeout');
    t.equal(asleep.body.running, false);
    const msg = await s.call('POST', `${base}/session/${id}/messages`, { message: 'wake up' });
    const delivered = await terminalOnStream(env, msg.body.event_cursor, msg.body.request_id);
    t.equal(
      delivered.type,
      'request.result.session.message',
      'the message started it again and was delivered',
    );
    await eventually(() => conversation(env.logDir).includes('echo: wake up'), 10_000);
  });
}
