/**
 * The one way to read and answer a session's pending interaction, whatever its runtime: from the protocol
 * where the runtime has one (ACP's permission requests), else from its screen (one capture, then the key an
 * approval menu takes). The pending routes, the session stream and the runtime conformance suite use it.
 */
import type { RuntimeProvider } from '../runtime/provider.ts';
import { detectPending, type PendingInteraction } from './detect.ts';
import { PENDING_SCREEN_LINES } from './patterns.ts';

/** The interaction `name` waits on, or undefined. @throws SessionNotFoundError. */
export async function readPending(
  runtime: RuntimeProvider,
  name: string,
): Promise<PendingInteraction | undefined> {
  if (runtime.pending) return runtime.pending(name);
  return detectPending(await runtime.peek(name, PENDING_SCREEN_LINES));
}

/** The actions behind an approval menu's keys, in key order (1, 2, 3). */
const ACTION_OF_KEY: Readonly<Record<string, string>> = {
  '1': 'approve',
  '2': 'approve_always',
  '3': 'deny',
};

/**
 * Answers `pending` with the approval-menu `key` (1 approve, 2 approve always, 3 deny): the protocol's
 * answer where the runtime takes one, else the key typed once.
 */
export async function answerPending(
  runtime: RuntimeProvider,
  name: string,
  pending: PendingInteraction,
  key: string,
): Promise<void> {
  if (runtime.respond) return runtime.respond(name, pending.request_id, ACTION_OF_KEY[key] ?? key);
  await runtime.sendKeys(name, key);
}
