/** The mock agent over pipes: answers, its Claude-format log, resume, and the test directives. */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { mockAgentPath } from '../../actors/sessions/runtime/presets.ts';
import { until } from '../runtimes/conformance.ts';

interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** Runs the agent with `input` on stdin (closed after it) and waits for it to end. */
function run(args: string[], input: string, cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [mockAgentPath(), ...args], {
      cwd,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, code }));
    child.stdin.end(input);
  });
}

/** Starts the agent and keeps stdin open for a conversation. */
function live(args: string[], cwd: string) {
  const child = spawn(process.execPath, [mockAgentPath(), ...args], { cwd });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    ended,
    out: () => stdout,
    waitFor: (text: string) =>
      until(
        () => stdout.includes(text),
        10_000,
        () => `${text} in:\n${stdout}`,
      ),
  };
}

interface LogRecord {
  type: string;
  uuid: string;
  parentUuid: string | null;
  sessionId: string;
  message: { role: string; content: unknown };
}

const records = (file: string): LogRecord[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LogRecord);

t.test('answers each line with echo: and keeps a Claude-format JSONL log with a parent chain', async (t) => {
  const dir = t.testdir();
  const r = await run(['--session-id', 'conv-1', '--log-dir', dir], 'hello\nsecond line\n', dir);
  t.equal(r.code, 0, 'the end of input ends it');
  t.equal(r.stderr, '');
  t.match(r.stdout, /^gc-mock-agent \(session conv-1\)\n/);
  t.match(r.stdout, '❯ echo: hello\n❯ echo: second line\n❯ ');
  const log = records(join(dir, 'conv-1.jsonl'));
  t.same(
    log.map((e) => [e.type, e.uuid, e.parentUuid]),
    [
      ['user', 'conv-1-1', null],
      ['assistant', 'conv-1-2', 'conv-1-1'],
      ['user', 'conv-1-3', 'conv-1-2'],
      ['assistant', 'conv-1-4', 'conv-1-3'],
    ],
  );
  t.match(log[0], {
    sessionId: 'conv-1',
    cwd: dir,
    timestamp: /^\d{4}-\d\d-\d\dT/,
    message: { role: 'user', content: 'hello' },
  });
  t.match(log[3], { message: { role: 'assistant', content: [{ type: 'text', text: 'echo: second line' }] } });
});

t.test('the log goes under GC_MOCK_LOG_DIR, else under ~/.claude/projects/<workdir as a slug>', async (t) => {
  const dir = t.testdir({ work: {} });
  await run(['--session-id', 'env-dir'], 'x\n', dir, { GC_MOCK_LOG_DIR: join(dir, 'logs') });
  t.ok(existsSync(join(dir, 'logs', 'env-dir.jsonl')), 'GC_MOCK_LOG_DIR');
  const work = join(dir, 'work');
  await run(['--session-id', 'home-dir'], 'x\n', work, { HOME: dir, GC_MOCK_LOG_DIR: '' });
  const slug = work.replace(/[/.]/g, '-');
  t.ok(existsSync(join(dir, '.claude', 'projects', slug, 'home-dir.jsonl')), `~/.claude/projects/${slug}`);
});

t.test('resume of an unknown conversation exits 1 with an error; of a known one appends to it', async (t) => {
  const dir = t.testdir();
  const unknown = await run(['--resume', 'nope', '--log-dir', dir], 'hi\n', dir);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, 'No conversation found with session ID: nope');
  t.equal(unknown.stdout, '', 'no prompt is shown');
  t.notOk(existsSync(join(dir, 'nope.jsonl')), 'no log is created');

  await run(['--session-id', 'conv-2', '--log-dir', dir], 'one\n', dir);
  const resumed = await run(['--resume', 'conv-2', '--log-dir', dir], 'two\n', dir);
  t.equal(resumed.code, 0);
  t.match(resumed.stdout, 'echo: two');
  const log = records(join(dir, 'conv-2.jsonl'));
  t.same(
    log.map((e) => [e.uuid, e.parentUuid]),
    [
      ['conv-2-1', null],
      ['conv-2-2', 'conv-2-1'],
      ['conv-2-3', 'conv-2-2'],
      ['conv-2-4', 'conv-2-3'],
    ],
    'the chain continues in the same file',
  );
});

t.test('a first message given as an argument is answered after the prompt', async (t) => {
  const dir = t.testdir();
  const r = await run(['--session-id', 'arg', '--log-dir', dir, 'role prompt'], '', dir);
  t.match(r.stdout, '❯ echo: role prompt\n❯ ');
});

t.test('/mock think answers after the time, queues input meanwhile; SIGINT interrupts it', async (t) => {
  const dir = t.testdir();
  const r = await run(['--session-id', 'think', '--log-dir', dir], '/mock think 50\nqueued\n', dir);
  t.match(r.stdout, 'thinking… (esc to interrupt)\necho: done thinking\n❯ echo: queued\n❯ ');
  const log = records(join(dir, 'think.jsonl'));
  t.same(
    log.map((e) => e.message.content),
    [
      '/mock think 50',
      [{ type: 'text', text: 'echo: done thinking' }],
      'queued',
      [{ type: 'text', text: 'echo: queued' }],
    ],
  );

  const agent = live(['--session-id', 'think-int', '--log-dir', dir], dir);
  agent.child.stdin.write('/mock think 60000\n');
  await agent.waitFor('thinking');
  agent.child.kill('SIGINT');
  await agent.waitFor('interrupted\n❯ ');
  agent.child.stdin.write('\x03');
  agent.child.stdin.write('still alive\n');
  await agent.waitFor('echo: still alive');
  agent.child.stdin.end();
  t.equal(await agent.ended, 0);
  t.match(records(join(dir, 'think-int.jsonl'))[1], {
    type: 'user',
    message: { content: '[Request interrupted by user]' },
  });
});

t.test('/mock approve shows an approval prompt and takes one key', async (t) => {
  const dir = t.testdir();
  const agent = live(['--session-id', 'approve', '--log-dir', dir], dir);
  agent.child.stdin.write('/mock approve Bash\n');
  await agent.waitFor('3. No');
  t.match(agent.out(), '● Bash()\nThis command requires approval\nDo you want to proceed?\n❯ 1. Yes\n');
  agent.child.stdin.write('1');
  await agent.waitFor('approved\n❯ ');
  agent.child.stdin.write('/mock approve Edit\nn');
  await agent.waitFor('denied\n❯ ');
  agent.child.stdin.end();
  t.equal(await agent.ended, 0);
});

t.test('/mock crash exits with the code, /mock exit with 0, /mock hang stops answering', async (t) => {
  const dir = t.testdir();
  t.equal((await run(['--log-dir', dir], '/mock crash 42\nnever\n', dir)).code, 42);
  const exited = await run(['--log-dir', dir], '/mock exit\nnever\n', dir);
  t.equal(exited.code, 0);
  t.notMatch(exited.stdout, 'never');

  const hung = live(['--log-dir', dir], dir);
  hung.child.stdin.write('before\n/mock hang\nafter\n');
  await hung.waitFor('echo: before');
  hung.child.stdin.end();
  // Alive after its input ended, and nothing answered: a SIGTERM is what ends it.
  const ended = await Promise.race([hung.ended, new Promise((r) => setTimeout(r, 300, 'still running'))]);
  t.equal(ended, 'still running');
  t.notMatch(hung.out(), 'echo: after');
  hung.child.kill('SIGTERM');
  t.equal(await hung.ended, null, 'ended by the signal');
});

t.test('an unknown directive and a bad option are reported', async (t) => {
  const dir = t.testdir();
  t.match((await run(['--log-dir', dir], '/mock dance\n', dir)).stdout, 'mock: unknown directive "dance"');
  const bad = await run(['--frobnicate'], '', dir);
  t.equal(bad.code, 1);
  t.match(bad.stderr, 'unknown option --frobnicate');
});
