import t from 'tap';
import { FakeRuntimeProvider, FakeWorld } from '../../actors/sessions/runtime/fakeProvider.ts';
import { SessionDiedDuringStartupError } from '../../actors/sessions/runtime/provider.ts';
import { runtimeConformance } from './conformance.ts';

// The fake runs no command; it reads a bare `exit N` as a process that dies at once, as a shell would.
const world = new FakeWorld();
const onStart = (_name: string, cfg: { command: string }) => {
  const code = /^exit (\d+)$/.exec(cfg.command)?.[1];
  return code === undefined ? undefined : { diesWith: Number(code) };
};

runtimeConformance(t, {
  provider: async () => new FakeRuntimeProvider({ world, onStart }),
  realProcesses: false,
});

t.test(
  'fake knobs: programmed start outcomes, crashes on command, restarts over a shared world',
  async (t) => {
    const shared = new FakeWorld();
    const fake = new FakeRuntimeProvider({ world: shared, now: () => 1234 });
    const identity = { sessionId: 'gc-1', instanceToken: 'tok', city: 'c' };
    const cfg = { command: 'agent', workDir: '/w', identity };

    fake.failNextStart('a', { diesWith: 2 });
    fake.failNextStart('a', { error: new Error('no capacity') });
    await t.rejects(fake.start('a', cfg), SessionDiedDuringStartupError);
    await t.rejects(fake.start('a', cfg), { message: 'no capacity' });
    await fake.start('a', cfg);
    t.match((await fake.observe()).get('a'), { running: true, lastActivity: 1234, identity });

    await fake.nudge('a', 'hello');
    t.same(fake.inputs('a'), ['hello'], 'inputs are recorded');
    t.match(await fake.peek('a', 2), 'echo: hello\n❯');

    fake.crash('a', 5);
    t.match((await fake.observe()).get('a'), { running: false, exitCode: 5 });

    fake.addForeign('theirs');
    const restarted = new FakeRuntimeProvider({ world: shared });
    const seen = await restarted.observe();
    t.match(
      seen.get('a'),
      { running: false, exitCode: 5, identity },
      'a second provider sees the same sessions',
    );
    t.equal(seen.get('theirs')?.identity, undefined, 'a foreign session has no identity');

    fake.setAttached('theirs', true);
    t.match((await fake.observe()).get('theirs'), { attached: true });
    t.same(
      fake.calls.map((c) => c.op),
      ['start', 'start', 'start', 'observe', 'nudge', 'peek', 'observe', 'observe'],
      'every call is recorded in order',
    );
  },
);

t.test('fake without echo only records', async (t) => {
  const fake = new FakeRuntimeProvider({ echo: false });
  await fake.start('q', {
    command: '',
    workDir: '/',
    identity: { sessionId: 'x', instanceToken: 'y', city: 'z' },
  });
  await fake.nudge('q', '/mock crash 3');
  t.match((await fake.observe()).get('q'), { running: true }, 'directives are not acted on');
  t.equal(await fake.peek('q', 0), '', 'nothing is printed');
});
