import t from 'tap';
import { AcpProvider } from '../../actors/sessions/runtime/acpProvider.ts';
import { ExecProvider } from '../../actors/sessions/runtime/execProvider.ts';
import { RoutingProvider } from '../../actors/sessions/runtime/routingProvider.ts';
import { openRuntimeProvider } from '../../actors/sessions/runtime/openProvider.ts';
import { cityRuntimeKind, thresholdsFrom } from '../../actors/sessions/startSessionService.ts';
import { cityConfigOf } from '../../actors/config/cityConfig.ts';
import { FakeRuntimeProvider } from '../../actors/sessions/runtime/fakeProvider.ts';
import { mockAcpAgentCommand } from '../../actors/sessions/runtime/presets.ts';
import { resolveTemplate } from '../../actors/sessions/templates.ts';
import { until } from './conformance.ts';

t.test(
  '[session] provider chooses the runtime by upstream key; one we lack is a precise error',
  async (t) => {
    const env = { GC_SESSION_RUNTIME: 'subprocess' };
    t.equal(cityRuntimeKind({ provider: 'exec:/opt/gc/session.sh' }, env), 'exec:/opt/gc/session.sh');
    t.equal(cityRuntimeKind({ provider: 'fake' }, env), 'fake');
    t.equal(cityRuntimeKind({}, env), 'subprocess', 'unset: the supervisor chooses');
    t.throws(
      () => cityRuntimeKind({ provider: 'exec:' }, env),
      /\[session\] provider must be .*exec:<script>, not "exec:"/,
    );
    t.equal(
      cityRuntimeKind({ provider: 'screen' }, env),
      'subprocess',
      'a name upstream does not know: the default',
    );
    t.throws(() => cityRuntimeKind({ provider: 'k8s' }, env), /\[session\] provider must be .*not "k8s"/);
    t.throws(() => cityRuntimeKind({}, { GC_SESSION_RUNTIME: 'nope' }), /GC_SESSION_RUNTIME must be/);
    t.same(
      thresholdsFrom({ provider: 'exec:/x', idle_timeout: '1m' }),
      { idleTimeoutMs: 60_000 },
      'not a threshold',
    );
    t.equal(cityRuntimeKind({ provider: 'acp' }, env), 'acp');
    const opened = openRuntimeProvider('exec:/opt/gc/session.sh', { city: 'c', home: '/h' });
    t.type(opened, RoutingProvider, 'agents with session = "acp" run beside the others');
    t.type((opened as RoutingProvider).base, ExecProvider);
    t.equal(((opened as RoutingProvider).base as ExecProvider).script, '/opt/gc/session.sh');
    t.type(openRuntimeProvider('acp', { city: 'c', home: '/h' }), AcpProvider);
  },
);

t.test(
  'an agent with session = "acp" runs its provider ACP command; a provider without ACP is refused',
  async (t) => {
    const config = cityConfigOf({
      workspace: { name: 'c', provider: 'mock' },
      agent: [
        { name: 'talker', provider: 'mock', session: 'acp' },
        { name: 'typer', provider: 'mock' },
        { name: 'nope', provider: 'codex', session: 'acp' },
        { name: 'odd', provider: 'mock', session: 'ssh' },
      ],
    });
    const talker = resolveTemplate(config, 'agent', 'talker');
    t.match(talker, { transport: 'acp', provider: 'mock', command: /gc-mock-acp-agent\.mjs/ });
    t.equal(resolveTemplate(config, 'agent', 'typer').transport, undefined, 'others keep the city runtime');
    t.throws(() => resolveTemplate(config, 'agent', 'nope'), {
      name: 'ValidationError',
      message:
        'agent nope: session = "acp" needs a provider with supports_acp = true, and codex does not declare it',
    });
    t.throws(() => resolveTemplate(config, 'agent', 'odd'), /session "ssh" is not a session transport/);
    const cityWide = cityConfigOf({
      workspace: { name: 'c', provider: 'mock' },
      session: { provider: 'acp' },
    });
    t.match(resolveTemplate(cityWide, undefined, undefined), {
      transport: 'acp',
      command: /gc-mock-acp-agent/,
    });
  },
);

t.test('the routing runtime runs ACP sessions beside the city runtime and answers for both', async (t) => {
  const fake = new FakeRuntimeProvider();
  const routing = new RoutingProvider(fake, () => new AcpProvider({ stopGraceMs: 300 }));
  t.teardown(() => routing.close());
  const dir = t.testdir();
  const identity = { sessionId: 'gc-r', instanceToken: 'tok-r', city: 'c' };
  await routing.start('typed', { command: 'agent', workDir: dir, identity });
  await routing.start('spoken', {
    command: mockAcpAgentCommand('--log-dir', dir),
    workDir: dir,
    identity,
    transport: 'acp',
  });
  t.same([...(await routing.observe()).keys()].sort(), ['spoken', 'typed'], 'one observe covers both');
  t.same(
    fake.calls.filter((c) => c.op === 'start').map((c) => c.name),
    ['typed'],
    'the ACP session never reached the city runtime',
  );
  await routing.nudge('spoken', '/mock approve Bash');
  await until(
    async () => (await routing.pending('spoken')) !== undefined,
    10_000,
    () => 'the ACP request',
  );
  const asked = await routing.pending('spoken');
  t.match(asked, { kind: 'approval', metadata: { source: 'acp', tool_name: 'Bash' } });
  await routing.respond('spoken', asked!.request_id, 'approve');
  await until(
    async () => (await routing.peek('spoken', 5)).includes('approved'),
    10_000,
    () => 'approved',
  );
  await routing.nudge('typed', '/mock approve Bash');
  const typed = await routing.pending('typed');
  t.match(typed, { metadata: { source: 'tmux', tool_name: 'Bash' } }, 'the screen is read for the other');
  await routing.respond('typed', typed!.request_id, 'deny');
  t.match(await routing.peek('typed', 5), /denied/, 'answered by the key the menu takes');
  t.throws(() => routing.attachCommand('spoken'), { name: 'UnsupportedOperationError' });
});
