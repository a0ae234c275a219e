/**
 * session/load on the ACP runtime: a start given the agent's earlier session id reattaches it where the agent
 * offers `loadSession` (the replayed history on the screen and in the conversation, the log continued), and
 * starts a new session where it does not or where the agent no longer has that session. The conversation
 * folded from the updates is the transcript's shape (user, assistant, thinking, tool_use, tool_result).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { AcpProvider } from '../../actors/sessions/runtime/acpProvider.ts';
import { mockAcpAgentCommand } from '../../actors/sessions/runtime/presets.ts';
import { turnOf } from '../../actors/sessions/transcript/turns.ts';

const dir = mkdtempSync(join(tmpdir(), 'gc-acp-load-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const identity = { sessionId: 's', instanceToken: 't', city: 'c' };

/** Resolves once the session's screen satisfies `match` (checked on every change). */
function screenWhere(p: AcpProvider, name: string, match: (screen: string) => boolean): Promise<string> {
  return new Promise((resolve) => {
    const check = () => {
      const screen = p.peekNow(name, 0);
      if (!match(screen)) return;
      off();
      resolve(screen);
    };
    const off = p.onChange(name, check);
    check();
  });
}

const turns = (p: AcpProvider, name: string) =>
  (p.conversation(name) ?? []).map(turnOf).map((x) => x && { role: x.role, text: x.text });

t.test('a restart reattaches the agent session with session/load', async (t) => {
  const p = new AcpProvider();
  t.teardown(() => p.close());
  const command = mockAcpAgentCommand('--log-dir', dir);
  await p.start('a', { command, workDir: dir, identity });
  const first = p.acpSession('a');
  t.match(first, { id: /\S/, began: 'new' });
  await p.nudge('a', 'first words');
  await screenWhere(p, 'a', (s) => s.endsWith('echo: first words\n❯'));
  await p.stop('a');

  await p.start('a', { command, workDir: dir, identity, acpSessionId: first!.id });
  t.same(p.acpSession('a'), { id: first!.id, began: 'load' });
  const screen = p.peekNow('a', 0);
  t.match(screen, /❯ first words\necho: first words\n❯$/, 'the replayed history is on the screen');
  t.same(turns(p, 'a'), [
    { role: 'user', text: 'first words' },
    { role: 'assistant', text: 'echo: first words' },
  ]);
  await p.nudge('a', 'again');
  await screenWhere(p, 'a', (s) => s.endsWith('echo: again\n❯'));
  const log = readFileSync(join(dir, `${first!.id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; uuid: string; parentUuid: string | null });
  t.same(
    log.map((r) => r.type),
    ['user', 'assistant', 'user', 'assistant'],
    'the agent continued the same conversation',
  );
  t.equal(log[2]?.parentUuid, log[1]?.uuid, 'its chain unbroken');

  // An id the agent does not have: a new session, and why on the screen.
  await p.stop('a');
  await p.start('a', { command, workDir: dir, identity, acpSessionId: 'no-such-session' });
  t.match(p.acpSession('a'), { began: 'new' });
  t.not(p.acpSession('a')!.id, 'no-such-session');
  t.match(p.peekNow('a', 0), /gc: session\/load of no-such-session refused/);
});

t.test('an agent without loadSession starts a new session', async (t) => {
  const p = new AcpProvider();
  t.teardown(() => p.close());
  const command = mockAcpAgentCommand('--log-dir', dir, '--no-load');
  await p.start('b', { command, workDir: dir, identity });
  const first = p.acpSession('b')!;
  await p.nudge('b', 'hello');
  await screenWhere(p, 'b', (s) => s.endsWith('echo: hello\n❯'));
  await p.stop('b');
  await p.start('b', { command, workDir: dir, identity, acpSessionId: first.id });
  t.match(p.acpSession('b'), { began: 'new' });
  t.not(p.acpSession('b')!.id, first.id);
  t.notMatch(p.peekNow('b', 0), /hello/, 'no history replayed');
  t.same(p.conversation('b'), []);
});

t.test('the conversation folds thoughts, tool calls and their results', async (t) => {
  const p = new AcpProvider();
  t.teardown(() => p.close());
  await p.start('c', { command: mockAcpAgentCommand('--log-dir', dir), workDir: dir, identity });
  await p.nudge('c', '/mock think 10');
  await screenWhere(p, 'c', (s) => s.endsWith('done thinking\n❯'));
  await p.nudge('c', '/mock approve Bash');
  await screenWhere(p, 'c', (s) => s.includes('waiting for approval'));
  const asked = await p.pending('c');
  await p.respond('c', asked!.request_id, 'approve');
  await screenWhere(p, 'c', (s) => s.endsWith('approved\n❯'));
  t.same(turns(p, 'c'), [
    { role: 'user', text: '/mock think 10' },
    { role: 'assistant', text: '[thinking]' },
    { role: 'assistant', text: 'done thinking' },
    { role: 'user', text: '/mock approve Bash' },
    { role: 'assistant', text: '[Bash]' },
    { role: 'assistant', text: 'approved' },
  ]);
  const entries = p.conversation('c')!;
  t.equal(entries[0]!.parentUuid, null);
  for (let i = 1; i < entries.length; i++) t.equal(entries[i]!.parentUuid, entries[i - 1]!.uuid);
  t.match(JSON.parse(entries[4]!.raw), {
    type: 'assistant',
    message: { content: [{ type: 'tool_use', name: 'Bash' }] },
  });
});
