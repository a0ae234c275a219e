import t from 'tap';
import { stepTurns, type Sent } from '../../http/routes/agentsStream.ts';
import { conversation, turn } from '../helpers/recordingAgents.ts';

/**
 * What the agent output stream sends after what it has sent, for one read of the output (a pure function):
 * turns by their position in the conversation, checked by timestamp; screens when they change.
 */

const at = (index: number, timestamp?: string): Sent => ({ format: 'conversation', index, timestamp });
const ts = (n: number): string | undefined => turn(n).timestamp;

t.test('a conversation: everything first, then only what is past the last position sent', async (t) => {
  const two = conversation('a', [turn(1), turn(2)]);
  t.same(stepTurns(two, undefined), {
    kind: 'frame',
    frame: { turns: [turn(1), turn(2)], id: '2' },
    sent: at(2, ts(2)),
  });
  t.same(
    stepTurns(two, at(2, ts(2))),
    { kind: 'frame', frame: undefined, sent: at(2, ts(2)) },
    'nothing new',
  );
  const three = conversation('a', [turn(1), turn(2), turn(3)]);
  t.same(stepTurns(three, at(2, ts(2))), {
    kind: 'frame',
    frame: { turns: [turn(3)], id: '3' },
    sent: at(3, ts(3)),
  });
  t.same(
    stepTurns(three, at(1)),
    {
      kind: 'frame',
      frame: { turns: [turn(2), turn(3)], id: '3' },
      sent: at(3, ts(3)),
    },
    'a resume (no timestamp known) trusts the position',
  );
  const empty = conversation('a', []);
  t.same(
    stepTurns(empty, undefined),
    { kind: 'frame', frame: undefined, sent: at(0) },
    'an empty log: no frame',
  );
});

t.test('a page of the latest turns sits at the end of the whole conversation', async (t) => {
  const page = conversation('a', [turn(9), turn(10)], 10);
  t.same(stepTurns(page, at(9, ts(9))), {
    kind: 'frame',
    frame: { turns: [turn(10)], id: '10' },
    sent: at(10, ts(10)),
  });
  t.same(stepTurns(page, at(5, ts(5))), { kind: 'gap' }, 'turns 6-8 are not in the page: read them all');
});

t.test('a replaced conversation is sent from its start', async (t) => {
  const other = conversation('a', [{ ...turn(1), timestamp: '2030-01-01T00:00:00Z' }, turn(2)]);
  t.same(
    stepTurns(other, at(1, ts(1))),
    {
      kind: 'frame',
      frame: { turns: other.turns, id: '2' },
      sent: at(2, ts(2)),
    },
    'the turn at the last position has another timestamp',
  );
  const shorter = conversation('a', [turn(1)]);
  t.same(
    stepTurns(shorter, at(4, ts(4))),
    {
      kind: 'frame',
      frame: { turns: [turn(1)], id: '1' },
      sent: at(1, ts(1)),
    },
    'shorter than what was sent',
  );
});

t.test('a screen is sent whole, only when it changed, without a position', async (t) => {
  const screen = (text: string) => ({ agent: 'a', format: 'text', turns: [{ role: 'output', text }] });
  const first = stepTurns(screen('$ ls'), at(3));
  t.same(first, {
    kind: 'frame',
    frame: { turns: [{ role: 'output', text: '$ ls' }], id: undefined },
    sent: { format: 'text', text: '$ ls' },
  });
  const sent = first.kind === 'frame' ? first.sent : undefined;
  t.same(stepTurns(screen('$ ls'), sent), { kind: 'frame', frame: undefined, sent });
  t.match(stepTurns(screen('$ ls\na'), sent), { frame: { turns: [{ text: '$ ls\na' }] } });
  t.match(
    stepTurns(conversation('a', [turn(1)]), sent),
    { frame: { id: '1' } },
    'a log appeared: from its start',
  );
});
