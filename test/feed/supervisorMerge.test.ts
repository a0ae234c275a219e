import t from 'tap';
import { mergeSupervisorEvents } from '../../actors/runtime/feed/supervisorMerge.ts';
import { SUPERVISOR_LOG, type Journal } from '../../actors/runtime/journal/journal.ts';
import { logOf } from '../helpers/feed.ts';
import { FlakyJournal } from '../helpers/journals.ts';

// The supervisor list's merge without HTTP: order across logs, the snapshot heads, total and limit.

const logs = (): Map<string, Journal> =>
  new Map<string, Journal>([
    // ts seconds: sup 2, 5; alpha 1, 2, 4 (its 2 ties with sup's 2); beta 2 (ties too), 3
    [SUPERVISOR_LOG, logOf(SUPERVISOR_LOG, ['s1', 'hidden'], [2, 5])],
    ['beta', logOf('beta', ['b1', 'b2'], [2, 3])],
    ['alpha', logOf('alpha', ['a1', 'a2', 'a3'], [1, 2, 4])],
  ]);

const served = (_log: string, e: { type: string }): boolean => e.type !== 'hidden';
const pairs = (items: Array<{ log: string; event: { seq: number } }>) =>
  items.map((i) => `${i.log}:${i.event.seq}`);

t.test(
  'oldest first by ts, ties by log name then seq; heads are the snapshot; unserved left out',
  async (t) => {
    const merge = await mergeSupervisorEvents(logs(), { served });
    t.same(pairs(merge.items), ['alpha:1', `${SUPERVISOR_LOG}:1`, 'alpha:2', 'beta:1', 'beta:2', 'alpha:3']);
    t.same(
      [...merge.heads],
      [
        [SUPERVISOR_LOG, 2],
        ['beta', 2],
        ['alpha', 3],
      ],
    );
    t.equal(merge.total, 7, 'unfiltered, total is the sum of the heads: the hidden event counts');
  },
);

t.test('limit keeps the newest N; after and filters count served matches', async (t) => {
  const newest = await mergeSupervisorEvents(logs(), { served, limit: 2 });
  t.same(pairs(newest.items), ['beta:2', 'alpha:3']);
  t.equal(newest.total, 7);
  const after = await mergeSupervisorEvents(logs(), {
    served,
    after: new Map([
      ['alpha', 2],
      [SUPERVISOR_LOG, 1],
    ]),
  });
  t.same(pairs(after.items), ['beta:1', 'beta:2', 'alpha:3'], 'a log absent from after starts at 1');
  t.equal(after.total, 3);
  const typed = await mergeSupervisorEvents(logs(), { type: 'a2' });
  t.same(pairs(typed.items), ['alpha:2']);
  t.equal(typed.total, 1);
});

t.test('a log that cannot be listed is left out, the rest merged', async (t) => {
  const broken = new FlakyJournal(logOf('broken', ['x']), 0);
  broken.list = () => Promise.reject(new Error('down'));
  const merge = await mergeSupervisorEvents(new Map<string, Journal>([...logs(), ['broken', broken]]), {});
  t.equal(merge.items.length, 7);
  t.equal(merge.heads.get('broken'), 1);
});
