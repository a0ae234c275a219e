import t from 'tap';
import { SubprocessProvider } from '../../actors/sessions/runtime/subprocessProvider.ts';
import { runtimeConformance, until } from './conformance.ts';

runtimeConformance(t, {
  provider: async () => new SubprocessProvider({ stopGraceMs: 500 }),
  realProcesses: true,
});

t.test('output is bounded in lines and bytes; peek renders carriage returns and escapes away', async (t) => {
  const provider = new SubprocessProvider({ maxLines: 50, maxBytes: 4096 });
  t.teardown(() => provider.close());
  const identity = { sessionId: 'gc-b', instanceToken: 'tok', city: 'c' };
  const script =
    'i=0; while [ $i -lt 500 ]; do echo "line $i"; i=$((i+1)); done; printf "50%%\\r\\033[1;32mdone\\033[0m\\n"; echo ready; sleep 1000';
  await provider.start('b', { command: script, workDir: '/', identity, readyPromptPrefix: 'ready' });
  const all = await provider.peek('b', 0);
  const lines = all.split('\n');
  t.ok(lines.length <= 50, `at most 50 lines kept (${lines.length})`);
  t.equal(lines.at(-1), 'ready');
  t.equal(lines.at(-2), 'done', 'what a terminal would show of the line');
  t.equal(lines.at(-3), 'line 499');
});

t.test('close stops every session; nudges are lines on stdin and C-c is SIGINT to the group', async (t) => {
  const provider = new SubprocessProvider();
  const identity = { sessionId: 'gc-c', instanceToken: 'tok', city: 'c' };
  const script = `trap 'echo got-int' INT; echo '$ '; while read -r line; do echo "read:$line"; done`;
  await provider.start('c', { command: script, workDir: '/', identity, readyPromptPrefix: '$' });
  await provider.sendKeys('c', 'a', 'b', 'Enter');
  await until(
    async () => (await provider.peek('c', 0)).includes('read:ab'),
    5000,
    () => 'read:ab',
  );
  await provider.sendKeys('c', 'C-c');
  await until(
    async () => (await provider.peek('c', 0)).includes('got-int'),
    5000,
    () => 'got-int',
  );
  const pid = (await provider.observe()).get('c')?.pid;
  await provider.close();
  t.same([...(await provider.observe()).keys()], [], 'no session left');
  t.throws(() => process.kill(pid!, 0), 'the process has ended');
});
