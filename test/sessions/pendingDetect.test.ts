/**
 * The pending-interaction parser on recorded screens (test/fixtures/captures): the mock agent under tmux
 * (recorded with capture-pane), Claude's boxed Bash prompt and its edit prompt (from the documented shape),
 * prose that mentions approval, an answered menu left in scrollback; and the keys a response types.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { approvalRequestId, detectPending } from '../../actors/sessions/pending/detect.ts';
import { keyFor } from '../../actors/sessions/pending/sessionPending.ts';
import { ValidationError } from '../../actors/runtime/errors.ts';

const capture = (name: string) =>
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'captures', name), 'utf8');

t.test('the mock agent approval prompt recorded from tmux', async (t) => {
  t.same(detectPending(capture('mock-approval-bash.txt')), {
    request_id: approvalRequestId('Bash', 'rm -rf build'),
    kind: 'approval',
    prompt: 'Bash: rm -rf build',
    options: ['Yes', "Yes, and don't ask again", 'No'],
    metadata: { tool_name: 'Bash', source: 'tmux' },
  });
  t.match(approvalRequestId('Bash', 'rm -rf build'), /^tmux-[0-9a-f]{16}$/);
  t.not(approvalRequestId('Bash', 'ls'), approvalRequestId('Bash', 'rm -rf build'));
});

t.test("Claude's boxed Bash prompt and its edit prompt", async (t) => {
  t.match(detectPending(capture('claude-approval-boxed.txt')), {
    kind: 'approval',
    prompt: 'Bash: rm -rf build && make',
    metadata: { tool_name: 'Bash' },
  });
  t.match(detectPending(capture('claude-edit-approval.txt')), {
    prompt: 'Edit: src/config.ts',
    metadata: { tool_name: 'Edit' },
  });
  t.match(detectPending('● Write()\nApprove edits?\n❯ 1. Yes'), { prompt: 'Allow Write?' });
});

t.test('no prompt: prose without a tool header, an answered menu, a bare screen', async (t) => {
  t.equal(detectPending(capture('prose-mentions-approval.txt')), undefined);
  t.equal(detectPending(capture('mock-approved.txt')), undefined, 'output below the menu: answered');
  t.equal(detectPending('❯ '), undefined);
  const far = `● Bash(ls)\n${'line\n'.repeat(45)}This command requires approval\n❯ 1. Yes`;
  t.equal(detectPending(far), undefined, 'a header more than 40 lines up is not this prompt');
});

t.test('respond actions type one key; answer takes an option or its number', async (t) => {
  t.equal(keyFor({ action: 'approve' }), '1');
  t.equal(keyFor({ action: 'allow' }), '1');
  t.equal(keyFor({ action: 'approve_always' }), '2');
  t.equal(keyFor({ action: 'deny' }), '3');
  t.equal(keyFor({ action: 'answer', text: 'No' }), '3');
  t.equal(keyFor({ action: 'answer', text: '2' }), '2');
  t.throws(() => keyFor({ action: 'answer', text: 'maybe' }), ValidationError);
  t.throws(() => keyFor({ action: 'shrug' }), ValidationError);
});
