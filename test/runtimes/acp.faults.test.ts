import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { AcpProvider } from '../../actors/sessions/runtime/acpProvider.ts';
import { mockAcpAgentCommand } from '../../actors/sessions/runtime/presets.ts';
import {
  RuntimeError,
  SessionDiedDuringStartupError,
  type Observation,
} from '../../actors/sessions/runtime/provider.ts';
import { procAlive, until } from './conformance.ts';

let n = 0;

/** A provider, a work dir and a started mock ACP agent, all ended with the test. */
async function started(t: Test, ...args: string[]) {
  const provider = new AcpProvider({ stopGraceMs: 300 });
  const dir = mkdtempSync(join(tmpdir(), 'gc-acp-'));
  t.teardown(async () => {
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const name = `f${++n}`;
  const identity = { sessionId: `gc-${n}`, instanceToken: `tok-${n}`, city: 'faults' };
  await provider.start(name, {
    command: mockAcpAgentCommand('--log-dir', dir, ...args),
    workDir: dir,
    identity,
  });
  const answer = async (text: string, expect: string | RegExp) => {
    await provider.nudge(name, text);
    let last = '';
    await until(
      async () => {
        last = await provider.peek(name, 0);
        return typeof expect === 'string' ? last.includes(expect) : expect.test(last);
      },
      10_000,
      () => `${String(expect)} on ${name}; last peek:\n${last}`,
    );
    return last;
  };
  return { provider, dir, name, answer };
}

t.test('Claude Code without a login: session/new fails at once with its message and auth hint', async (t) => {
  const provider = new AcpProvider();
  const dir = mkdtempSync(join(tmpdir(), 'gc-acp-'));
  t.teardown(async () => {
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const began = Date.now();
  const err = await provider
    .start('auth', {
      command: mockAcpAgentCommand('--log-dir', dir, '--auth-required'),
      workDir: dir,
      identity: { sessionId: 'gc-a', instanceToken: 'tok-a', city: 'faults' },
    })
    .catch((e: unknown) => e);
  t.type(err, RuntimeError);
  t.notOk(err instanceof SessionDiedDuringStartupError, 'the agent did not die: it refused');
  t.match(
    (err as Error).message,
    /Claude Code refused session\/new \(-32603\): Query closed before response received/,
  );
  t.match((err as Error).message, /claude \/login/, 'the auth hint the agent offers');
  t.ok(
    Date.now() - began < 10_000,
    `it fails at once, not at the handshake deadline (${Date.now() - began} ms)`,
  );
  t.same([...(await provider.observe()).keys()], [], 'nothing of it is left');
});

for (const [directive, error] of [
  ['garbage', /a line that is not JSON: "this is not JSON-RPC"/],
  ['huge', /a line over 8388608 bytes/],
  ['unknown', /asked for gc\/no_such_method, which the ACP client does not have/],
] as const) {
  t.test(`an agent that sends ${directive} gets a session error and is stopped; others go on`, async (t) => {
    const bad = await started(t);
    const good = await started(t);
    const pid = (await bad.provider.observe(bad.name)).get(bad.name)!.pid!;
    await bad.provider.nudge(bad.name, `/mock ${directive}`);
    let seen: Observation | undefined;
    await until(
      async () => (seen = (await bad.provider.observe(bad.name)).get(bad.name))?.running === false,
      20_000,
      () => `the end of ${bad.name}; last ${JSON.stringify(seen)}`,
    );
    t.match(seen, { running: false, error });
    t.match(await bad.provider.peek(bad.name, 5), /gc: ACP session error/, 'the error shows on the session');
    t.notOk(procAlive(pid), 'its process has been stopped');
    await good.answer('still fine', 'echo: still fine');
  });
}

t.test('fs and terminal requests are answered inside the work dir only', async (t) => {
  const { dir, answer } = await started(t);
  writeFileSync(join(dir, 'inside.txt'), 'inside text');
  const outside = mkdtempSync(join(tmpdir(), 'gc-acp-outside-'));
  t.teardown(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  await answer('/mock read inside.txt', 'inside text');
  await answer(`/mock read ${join(outside, 'secret.txt')}`, /read refused: .*outside the session's work dir/);
  await answer('/mock read ../../etc/passwd', /read refused: .*outside/);
  await answer('/mock write notes/new.txt hello there', 'written');
  t.equal(readFileSync(join(dir, 'notes/new.txt'), 'utf8'), 'hello there');
  await answer(`/mock write ${join(outside, 'planted.txt')} x`, /write refused: .*outside/);
  t.throws(() => readFileSync(join(outside, 'planted.txt')), 'nothing was written outside');
  await answer('/mock terminal .', `terminal: ${dir}`);
  const screen = await answer('/mock terminal /', /terminal refused: .*outside/);
  t.notMatch(screen, /terminal: \/\n/, 'no terminal ran outside');
});
