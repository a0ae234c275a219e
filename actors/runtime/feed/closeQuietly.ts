import type { Subscription } from '../journal/journal.ts';

/** Closes a journal subscription, ignoring a failure to do so (its log may already be gone). Never throws. */
export async function closeQuietly(sub: Subscription): Promise<void> {
  try {
    await sub.close();
  } catch {
    // Nothing more to release on a subscription that cannot even close.
  }
}
