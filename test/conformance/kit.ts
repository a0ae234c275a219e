import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';

/** An event draft of `type` by the conformance suite's actor. */
export const draft = (type: string, extra: Partial<JournalEvent> = {}) => ({
  type,
  actor: 'tester',
  ...extra,
});

/** Reads `n` events from a subscription, failing the test after `ms`. */
export async function take(
  iterable: AsyncIterable<JournalEvent>,
  n: number,
  ms = 5000,
): Promise<JournalEvent[]> {
  const out: JournalEvent[] = [];
  if (n === 0) return out;
  const it = iterable[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${out.length}/${n} events`)), ms);
  });
  try {
    while (out.length < n) {
      const r = await Promise.race([it.next(), timeout]);
      if (r.done) break;
      out.push(r.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return out;
}

/** Resolves once `holds()` is true, checking every 5 ms; fails naming `what` after `ms`. */
export async function until(holds: () => boolean, what: string, ms = 5000): Promise<void> {
  for (const deadline = Date.now() + ms; !holds(); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
  }
}
