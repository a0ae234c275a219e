/**
 * One suite every runtime provider passes (upstream's runtimetest cases plus ours): the mock agent starts and
 * is ready, a nudge reaches it and its answer shows in peek and in its JSONL log, one observe lists sessions
 * with their identity, start-up deaths and crashes are seen with their status, stop is idempotent and ends the
 * whole process tree, interrupt reaches a thinking agent, meta round-trips, absent sessions are reported, a
 * pending approval is read and answered (from the screen or the protocol), a restarted supervisor adopts the
 * sessions that outlive it, and what a runtime cannot do (attach on pipes) is a precise error.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { mockAgentCommand } from '../../actors/sessions/runtime/presets.ts';
import type { PendingInteraction } from '../../actors/sessions/pending/detect.ts';
import { answerPending, readPending } from '../../actors/sessions/pending/readPending.ts';
import {
  RuntimeError,
  SessionDiedDuringStartupError,
  UnsupportedOperationError,
  SessionExistsError,
  SessionNotFoundError,
  type Observation,
  type RuntimeProvider,
  type SessionIdentity,
  type StartConfig,
} from '../../actors/sessions/runtime/provider.ts';

export interface RuntimeHarness {
  /** A new provider over the same substrate each call (a second one plays a restarted supervisor). */
  provider(): Promise<RuntimeProvider>;
  /** Sessions are real processes: the JSONL log, environment and process-tree cases run. */
  realProcesses: boolean;
  /** The shell command that runs this runtime's mock agent with `args` (default: bin/gc-mock-agent.mjs). */
  agentCommand?: (...args: string[]) => string;
  /** attachCommand gives an argv (default: where `capabilities.attach`); else it is UnsupportedOperationError. */
  attach?: boolean;
  /** Deaths are seen with their exit status, sessions with their pid (default true; exec's protocol has neither). */
  exitCodes?: boolean;
}

let counter = 0;

export function runtimeConformance(t: Test, harness: RuntimeHarness): void {
  const agent = harness.agentCommand ?? mockAgentCommand;
  const exitCodes = harness.exitCodes ?? true;
  async function setup(t: Test) {
    const provider = await harness.provider();
    const dir = mkdtempSync(join(tmpdir(), 'gc-runtime-'));
    const started: string[] = [];
    t.teardown(async () => {
      for (const name of started) await provider.stop(name).catch(() => undefined);
      await provider.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const n = ++counter;
    const identity = (sessionId = `gc-${n}`): SessionIdentity => ({
      sessionId,
      instanceToken: `token-${process.pid}-${n}`,
      city: 'conformance',
    });
    const name = (suffix = '') => {
      const value = `s${n}${suffix}`;
      started.push(value);
      return value;
    };
    /** Start config for the mock agent logging under this test's folder. */
    const mock = (conversation: string, over: Partial<StartConfig> = {}): StartConfig => ({
      command: agent('--session-id', conversation, '--log-dir', dir),
      workDir: dir,
      identity: identity(),
      readyPromptPrefix: '❯',
      ...over,
    });
    const peekUntil = async (session: string, text: string, ms = 10_000) => {
      let last = '';
      await until(
        async () => (last = await provider.peek(session, 50)).includes(text),
        ms,
        () => `${text} in the output of ${session}; last peek:\n${last}`,
      );
      return last;
    };
    return { provider, dir, identity, name, mock, peekUntil };
  }

  t.test('the mock agent starts and shows its ready prompt', async (t) => {
    const { provider, name, mock } = await setup(t);
    const s = name();
    await provider.start(s, mock('c1'));
    const screen = await provider.peek(s, 10);
    t.match(screen, /^❯/m, 'a line starts with the ready prompt once start has returned');
    t.notMatch(screen, /\n\s*$/, 'trailing blank rows are trimmed');
  });

  t.test('a nudge reaches the agent; peek shows the answer and the JSONL log has both records', async (t) => {
    const { provider, dir, name, mock, peekUntil } = await setup(t);
    const s = name();
    await provider.start(s, mock('c2'));
    await provider.nudge(s, 'hello');
    // The prompt comes back after the answer (on ACP the turn's end follows its last update).
    await peekUntil(s, 'echo: hello\n❯');
    t.equal((await provider.peek(s, 1)).trim(), '❯', 'peek(1) is the last line only');
    if (!harness.realProcesses) return;
    const records = readFileSync(join(dir, 'c2.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { uuid: string });
    t.match(records, [
      { type: 'user', sessionId: 'c2', parentUuid: null, message: { role: 'user', content: 'hello' } },
      {
        type: 'assistant',
        sessionId: 'c2',
        parentUuid: records[0]?.uuid,
        message: { role: 'assistant', content: [{ type: 'text', text: 'echo: hello' }] },
      },
    ]);
    t.equal(records.length, 2, 'one record per side of the exchange');
  });

  t.test('one observe lists the sessions under a prefix with their identity', async (t) => {
    const { provider, name, mock, identity } = await setup(t);
    const a = name('-a');
    const b = name('-b');
    await provider.start(a, mock('c3a', { identity: identity('gc-a') }));
    await provider.start(b, mock('c3b', { identity: identity('gc-b') }));
    const all = await provider.observe(a.slice(0, -2));
    t.same([...all.keys()].sort(), [a, b], 'both sessions and only them');
    t.match(all.get(a), {
      name: a,
      running: true,
      attached: false,
      identity: { sessionId: 'gc-a', city: 'conformance' },
    });
    t.match(all.get(b), { running: true, identity: { sessionId: 'gc-b' } });
    if (exitCodes) t.type(all.get(a)?.pid, 'number', 'a pid is known');
    t.equal(all.get(a)?.exitCode, undefined, 'a running session has no exit code');
    if (provider.capabilities.activity) t.ok((all.get(a)?.lastActivity ?? 0) > 0, 'activity time is known');
    const onlyA = await provider.observe(a);
    t.same([...onlyA.keys()], [a], 'the prefix filters');
    t.same([...(await provider.observe('no-such-prefix-')).keys()], [], 'nothing under an unused prefix');
  });

  t.test('starting a live session again is SessionExistsError and leaves it running', async (t) => {
    const { provider, name, mock, peekUntil } = await setup(t);
    const s = name();
    await provider.start(s, mock('c4'));
    await t.rejects(provider.start(s, mock('c4b')), SessionExistsError);
    await provider.nudge(s, 'still here');
    await peekUntil(s, 'echo: still here');
  });

  t.test(
    'a crash is observed as not running with its exit code; nudging it is SessionNotFoundError',
    async (t) => {
      const { provider, name, mock } = await setup(t);
      const s = name();
      await provider.start(s, mock('c5'));
      await provider.nudge(s, '/mock crash 7');
      let seen: Observation | undefined;
      await until(
        async () => (seen = (await provider.observe(s)).get(s))?.running === false,
        10_000,
        () => `session ${s} seen as ended; last observation ${JSON.stringify(seen)}`,
      );
      t.match(seen, { name: s, running: false, identity: { sessionId: /^gc-/ } });
      if (exitCodes) t.equal(seen?.exitCode, 7, 'the exit status is known');
      await t.rejects(provider.nudge(s, 'anyone?'), SessionNotFoundError);
      await provider.start(s, mock('c5b'));
      t.match(
        (await provider.observe(s)).get(s),
        { running: true },
        'an ended session gives way to a new start',
      );
    },
  );

  t.test('a process that exits during start-up is SessionDiedDuringStartupError', async (t) => {
    const { provider, name, mock } = await setup(t);
    const s = name();
    const err = await provider.start(s, mock('c6', { command: 'exit 3' })).catch((e: unknown) => e);
    t.type(err, SessionDiedDuringStartupError);
    if (exitCodes) t.match((err as Error).message, /status 3/, 'the message names the exit status');
    t.notOk((await provider.observe(s)).get(s)?.running, 'nothing of it runs');
    await provider.start(s, mock('c6b'));
    t.match((await provider.observe(s)).get(s), { running: true }, 'the name can be started again');
  });

  t.test('stop is idempotent and the session is gone afterwards', async (t) => {
    const { provider, name, mock } = await setup(t);
    const s = name();
    await provider.start(s, mock('c7'));
    await provider.stop(s);
    await provider.stop(s);
    await provider.stop(`${s}-never-started`);
    t.notOk((await provider.observe(s)).has(s), 'observe no longer lists it');
    await t.rejects(provider.peek(s, 5), SessionNotFoundError);
  });

  t.test(
    'peek, nudge and meta of an unknown session are SessionNotFoundError; interrupt is a no-op',
    async (t) => {
      const { provider } = await setup(t);
      await t.rejects(provider.peek('no-such-session', 5), SessionNotFoundError);
      await t.rejects(provider.nudge('no-such-session', 'hi'), SessionNotFoundError);
      await t.rejects(provider.sendKeys('no-such-session', 'Enter'), SessionNotFoundError);
      await t.rejects(provider.getMeta('no-such-session', 'K'), SessionNotFoundError);
      await provider.interrupt('no-such-session');
    },
  );

  t.test('meta round-trips per session', async (t) => {
    const { provider, name, mock } = await setup(t);
    const a = name('-a');
    const b = name('-b');
    await provider.start(a, mock('c8a'));
    await provider.start(b, mock('c8b'));
    t.equal(await provider.getMeta(a, 'GC_DRAIN'), '', 'an unset key reads empty');
    await provider.setMeta(a, 'GC_DRAIN', 'yes; with spaces;');
    t.equal(await provider.getMeta(a, 'GC_DRAIN'), 'yes; with spaces;');
    t.equal(await provider.getMeta(b, 'GC_DRAIN'), '', 'another session does not see it');
    await provider.removeMeta(a, 'GC_DRAIN');
    t.equal(await provider.getMeta(a, 'GC_DRAIN'), '', 'removed');
  });

  t.test('interrupt stops a think and the agent takes input again', async (t) => {
    const { provider, name, mock, peekUntil } = await setup(t);
    const s = name();
    await provider.start(s, mock('c9'));
    await provider.nudge(s, '/mock think 60000');
    await peekUntil(s, 'thinking');
    await provider.interrupt(s);
    await peekUntil(s, 'interrupted');
    await provider.nudge(s, 'after');
    await peekUntil(s, 'echo: after');
    t.match((await provider.observe(s)).get(s), { running: true });
  });

  t.test('a pending approval is read and answered once; the answer reaches the agent', async (t) => {
    const { provider, name, mock, peekUntil } = await setup(t);
    const s = name();
    await provider.start(s, mock('c10'));
    t.equal(await readPending(provider, s), undefined, 'nothing pending at first');
    await provider.nudge(s, '/mock approve Bash');
    let pending: PendingInteraction | undefined;
    await until(
      async () => (pending = await readPending(provider, s)) !== undefined,
      10_000,
      () => `a pending approval of ${s}`,
    );
    t.match(pending, { kind: 'approval', request_id: /\S/, metadata: { tool_name: 'Bash' } });
    t.equal((await readPending(provider, s))?.request_id, pending!.request_id, 'the request id is stable');
    await answerPending(provider, s, pending!, '3');
    await peekUntil(s, 'denied');
    await until(
      async () => (await readPending(provider, s)) === undefined,
      10_000,
      () => `the approval of ${s} cleared`,
    );
    await provider.nudge(s, '/mock approve Edit');
    await until(
      async () => (pending = await readPending(provider, s))?.metadata?.tool_name === 'Edit',
      10_000,
      () => `a second approval of ${s}`,
    );
    await answerPending(provider, s, pending!, '1');
    await peekUntil(s, 'approved');
  });

  t.test('attach is an argv naming the session, or a precise error where there is no terminal', async (t) => {
    const { provider, name, mock } = await setup(t);
    const s = name();
    await provider.start(s, mock('c14'));
    if (harness.attach ?? provider.capabilities.attach) {
      const argv = provider.attachCommand(s);
      t.ok(
        argv.length > 0 && argv.some((a) => a.includes(s)),
        `the argv names the session: ${argv.join(' ')}`,
      );
    } else {
      let err: unknown;
      try {
        provider.attachCommand(s);
      } catch (e) {
        err = e;
      }
      t.type(err, UnsupportedOperationError);
      t.match(err, { runtime: provider.kind, operation: 'attach', message: new RegExp(provider.kind) });
    }
  });

  t.test('a restarted supervisor adopts what outlives it and finds nothing of what does not', async (t) => {
    const { provider, name, mock, identity } = await setup(t);
    const s = name();
    const id = identity('gc-adopt');
    await provider.start(s, mock('c15', { identity: id }));
    const pid = (await provider.observe(s)).get(s)?.pid;
    await provider.close();
    const second = await harness.provider();
    t.teardown(async () => {
      await second.stop(s);
      await second.close();
    });
    const seen = (await second.observe(s)).get(s);
    if (provider.capabilities.survivesRestart) {
      t.match(seen, { running: true, identity: id }, 'ours, with the identity it was started with');
      await second.nudge(s, 'after restart');
      const answer = await (async () => {
        let last = '';
        await until(
          async () => (last = await second.peek(s, 20)).includes('echo: after restart'),
          10_000,
          () => `the adopted session's answer; last peek:\n${last}`,
        );
        return last;
      })();
      t.match(answer, 'echo: after restart');
    } else {
      t.equal(seen, undefined, 'a runtime whose sessions end with it lists nothing after a restart');
      if (harness.realProcesses && pid !== undefined) t.notOk(procAlive(pid), 'and its process has ended');
    }
  });

  if (!harness.realProcesses) return;

  t.test('start passes the identity and the environment; an empty value unsets a variable', async (t) => {
    const { provider, name, mock, peekUntil } = await setup(t);
    const s = name();
    // On stderr: a protocol runtime's stdout is its protocol; every runtime shows stderr in peek.
    const show =
      'echo "id=$GC_SESSION_ID token=$GC_INSTANCE_TOKEN city=$GC_CITY a=$GC_A home=${HOME-unset}" >&2';
    const cfg = mock('c11', { env: { GC_A: 'alpha; beta', HOME: '' } });
    await provider.start(s, { ...cfg, command: `${show}; ${cfg.command}` });
    await peekUntil(s, 'id=');
    t.match(
      await provider.peek(s, 0),
      `id=${cfg.identity.sessionId} token=${cfg.identity.instanceToken} city=conformance a=alpha; beta home=unset`,
    );
  });

  t.test('stop ends the whole process tree, a child the agent left running included', async (t) => {
    const { provider, dir, name, mock } = await setup(t);
    const s = name();
    const cfg = mock('c12');
    const pidFile = join(dir, 'child.pid');
    await provider.start(s, { ...cfg, command: `sleep 1000 & echo $! > ${pidFile}; ${cfg.command}` });
    const child = Number(readFileSync(pidFile, 'utf8'));
    t.ok(procAlive(child), `the child ${child} runs before the stop`);
    await provider.stop(s);
    t.notOk(procAlive(child), `the child ${child} has ended after the stop`);
  });

  t.test('a start whose prompt never shows fails at the deadline and leaves nothing running', async (t) => {
    const { provider, name, mock } = await setup(t);
    const s = name();
    const started = Date.now();
    const err = await provider
      .start(s, mock('c13', { command: 'echo no prompt here >&2; sleep 1000' }), AbortSignal.timeout(300))
      .catch((e: unknown) => e);
    t.type(err, RuntimeError);
    t.notOk(err instanceof SessionDiedDuringStartupError, 'not a death: the process was alive');
    t.ok(Date.now() - started < 5000, 'the deadline is kept');
    t.notOk((await provider.observe(s)).has(s), 'the half-started session is removed');
  });

  t.test('resume of an unknown conversation dies during start-up, like the real CLI', async (t) => {
    const { provider, dir, name, mock } = await setup(t);
    const s = name();
    const cfg = mock('x', { command: agent('--resume', 'never-seen', '--log-dir', dir) });
    await t.rejects(provider.start(s, cfg), SessionDiedDuringStartupError);
  });
}

/** A zombie has ended too; only its parent has not reaped it. */
export function procAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Polls `check` until it holds; fails naming `what` after `ms`. */
export async function until(
  check: () => Promise<boolean> | boolean,
  ms: number,
  what: () => string,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await sleep(20);
  }
}
