import t from 'tap';
import { ExecProvider } from '../../actors/sessions/runtime/execProvider.ts';
import { openRuntimeProvider } from '../../actors/sessions/runtime/openProvider.ts';
import { cityRuntimeKind, thresholdsFrom } from '../../actors/sessions/startSessionService.ts';

t.test('[session] provider chooses the runtime by upstream key; a bad one is a precise error', async (t) => {
  const env = { GC_SESSION_RUNTIME: 'subprocess' };
  t.equal(cityRuntimeKind({ provider: 'exec:/opt/gc/session.sh' }, env), 'exec:/opt/gc/session.sh');
  t.equal(cityRuntimeKind({ provider: 'fake' }, env), 'fake');
  t.equal(cityRuntimeKind({}, env), 'subprocess', 'unset: the supervisor chooses');
  t.throws(
    () => cityRuntimeKind({ provider: 'exec:' }, env),
    /\[session\] provider must be .*exec:<script>, not "exec:"/,
  );
  t.throws(() => cityRuntimeKind({ provider: 'screen' }, env), /\[session\] provider must be/);
  t.throws(() => cityRuntimeKind({}, { GC_SESSION_RUNTIME: 'nope' }), /GC_SESSION_RUNTIME must be/);
  t.same(
    thresholdsFrom({ provider: 'exec:/x', idle_timeout: '1m' }),
    { idleTimeoutMs: 60_000 },
    'not a threshold',
  );
  const opened = openRuntimeProvider('exec:/opt/gc/session.sh', { city: 'c', home: '/h' });
  t.type(opened, ExecProvider);
  t.equal((opened as ExecProvider).script, '/opt/gc/session.sh');
});
