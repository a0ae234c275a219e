import t from 'tap';
import { CityFeed } from '../../actors/runtime/feed/cityFeed.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { draft, logOf } from '../helpers/feed.ts';
import { CountingJournal, FlakyJournal } from '../helpers/journals.ts';

// The city feed without HTTP: where it starts, what it skips, and that it ends cleanly either way.

/** A sink that records seqs and runs `onItem` after each. */
function sink(onItem: (seqs: number[]) => void = () => {}) {
  const seqs: number[] = [];
  return {
    seqs,
    ready: () => Promise.resolve(),
    deliver: (event: JournalEvent) => {
      seqs.push(event.seq);
      onItem(seqs);
    },
  };
}

t.test(
  'delivers after afterSeq, skips what keep refuses, follows appends, and close ends run()',
  async (t) => {
    const journal = new CountingJournal(logOf('c', ['a', 'hidden', 'b', 'c']));
    const feed = new CityFeed(journal, 1, { keep: (e) => e.type !== 'hidden' });
    let live!: () => void;
    const sawLive = new Promise<void>((r) => (live = r));
    const out = sink((seqs) => {
      if (seqs.at(-1) === 5) live();
    });
    const running = feed.run(out);
    await journal.append(draft('d'));
    await sawLive;
    t.same(out.seqs, [3, 4, 5]);
    t.equal(journal.open, 1);
    feed.close();
    await running;
    t.equal(journal.open, 0, 'the subscription is released');
    t.ok(feed.closed);
  },
);

t.test('a failing subscription is reported and ends run(); a closed feed reports nothing', async (t) => {
  const errors: unknown[] = [];
  const flaky = new FlakyJournal(logOf('c', ['a']), 1);
  await new CityFeed(flaky, 0, { onError: (err) => errors.push(err) }).run(sink());
  t.equal(errors.length, 1);
  t.match(String(errors[0]), /log unavailable/);
  t.equal(flaky.open, 0);

  const closed = new CityFeed(new FlakyJournal(logOf('c', ['a']), 1), 0, {
    onError: (err) => errors.push(err),
  });
  closed.close();
  await closed.run(sink());
  t.equal(errors.length, 1, 'nothing more reported');
});
