import t from 'tap';
import { RecentEvents } from '../actors/runtime/journal/recentEvents.ts';

const line = (seq: number) => JSON.stringify({ seq, type: 't', ts: 'x', actor: 'a' }) + '\n';

t.test('serves a range only when every event of it is held', async (t) => {
  const recent = new RecentEvents(4);
  for (let seq = 1; seq <= 6; seq++) recent.push(seq, line(seq));
  t.same(
    recent.range(3, 6)?.map((e) => e.seq),
    [3, 4, 5, 6],
    'the last four are held',
  );
  t.equal(recent.range(2, 6), undefined, 'seq 2 has been overwritten: read the file');
  t.equal(recent.range(5, 7), undefined, 'seq 7 was never appended');
  t.equal(recent.range(6, 5), undefined, 'an empty range is not served');
});

t.test('each read parses its own copy', async (t) => {
  const recent = new RecentEvents(8);
  recent.push(1, line(1));
  const [a] = recent.range(1, 1)!;
  a!.type = 'changed';
  t.equal(recent.range(1, 1)![0]!.type, 't', "one reader's change is not seen by the next");
});

t.test('a gap in seqs restarts the window', async (t) => {
  const recent = new RecentEvents(8);
  recent.push(1, line(1));
  recent.push(2, line(2));
  recent.push(5, line(5));
  t.equal(recent.range(1, 5), undefined);
  t.same(
    recent.range(5, 5)?.map((e) => e.seq),
    [5],
  );
});

t.test(
  'read-only readers share one decoded copy per event, and never a copy of a replaced slot',
  async (t) => {
    const recent = new RecentEvents(2);
    recent.push(1, line(1));
    recent.push(2, line(2));
    const [a] = recent.range(1, 1, true)!;
    t.equal(recent.range(1, 2, true)![0], a, 'the same object for every read-only reader');
    t.not(recent.range(1, 1)![0], a, 'a reader that may change its events still gets its own');
    recent.push(3, line(3));
    t.equal(recent.range(1, 3, true), undefined, 'seq 1 left the window');
    t.equal(recent.range(3, 3, true)![0]!.seq, 3, 'the slot of seq 1 decodes its new line');
  },
);
