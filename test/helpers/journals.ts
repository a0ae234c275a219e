import type {
  Journal,
  JournalEvent,
  ListFilter,
  Subscription,
  JournalDraft,
  AppendOptions,
} from '../../actors/runtime/journal/journal.ts';

/**
 * A journal wrapper that counts the subscriptions open on it, so a test can prove every subscription a
 * stream took was released (closing is the consumer's duty; the count drops only on `close()`).
 */
export class CountingJournal implements Journal {
  open = 0;
  opened = 0;
  constructor(readonly inner: Journal) {}
  get name(): string {
    return this.inner.name;
  }
  append(draft: JournalDraft, options?: AppendOptions): Promise<JournalEvent> {
    return this.inner.append(draft, options);
  }
  list(filter?: ListFilter): Promise<JournalEvent[]> {
    return this.inner.list(filter);
  }
  head(): Promise<number> {
    return this.inner.head();
  }
  subscribe(afterSeq: number): Subscription {
    const sub = this.inner.subscribe(afterSeq);
    this.open++;
    this.opened++;
    let closed = false;
    return {
      [Symbol.asyncIterator]: () => sub[Symbol.asyncIterator](),
      close: async () => {
        if (!closed) {
          closed = true;
          this.open--;
        }
        await sub.close();
      },
    };
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A journal whose subscriptions never deliver anything (a city whose log is stuck). */
export class StalledJournal extends CountingJournal {
  override subscribe(afterSeq: number): Subscription {
    const sub = super.subscribe(afterSeq);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    return {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          await gate;
          return { done: true as const, value: undefined };
        },
        return: async () => ({ done: true as const, value: undefined }),
      }),
      close: async () => {
        release();
        await sub.close();
      },
    };
  }
}

/** A journal whose first `failures` subscriptions throw when read (a log that is briefly unavailable). */
export class FlakyJournal extends CountingJournal {
  constructor(
    inner: Journal,
    public failures: number,
  ) {
    super(inner);
  }
  override subscribe(afterSeq: number): Subscription {
    const sub = super.subscribe(afterSeq);
    if (this.failures <= 0) return sub;
    this.failures--;
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.reject(new Error('log unavailable')),
      }),
      close: () => sub.close(),
    };
  }
}

/** A journal whose `head()` fails the first `failures` times, or never answers when `failures` is Infinity. */
export class SlowHeadJournal extends CountingJournal {
  constructor(
    inner: Journal,
    public failures: number,
  ) {
    super(inner);
  }
  override head(): Promise<number> {
    if (this.failures === Infinity) return new Promise(() => {});
    if (this.failures-- > 0) return Promise.reject(new Error('head unavailable'));
    return super.head();
  }
}
