import type { IncomingMessage } from 'node:http';
import { parseDuration } from '../../actors/config.ts';
import { BadRequestError } from '../../actors/errors.ts';
import type { Journal } from '../../actors/journal/journal.ts';

/** Upstream's blocking-query bounds: `wait` defaults to 30 s and is capped at 2 min. */
export const DEFAULT_WAIT_MS = 30_000;
export const MAX_WAIT_MS = 120_000;

export interface BlockingQuery {
  index: number;
  waitMs: number;
}

/**
 * The blocking query of `index` + `wait`, or undefined when `index` is absent. Pure.
 * @throws BadRequestError (400) for a non-integer index or an unparsable wait.
 */
export function parseBlockingQuery(query: { index?: string; wait?: string }): BlockingQuery | undefined {
  if (query.index === undefined || query.index === '') return undefined;
  // A seq is a safe integer: a longer index would be rounded and block on a head that can never come.
  if (!/^\d+$/.test(query.index) || !Number.isSafeInteger(Number(query.index)))
    throw new BadRequestError(`index must be a non-negative integer: ${JSON.stringify(query.index)}`);
  let waitMs = DEFAULT_WAIT_MS;
  if (query.wait !== undefined && query.wait !== '') {
    try {
      waitMs = parseDuration(query.wait);
    } catch (err) {
      throw new BadRequestError(`invalid wait duration: ${(err as Error).message}`);
    }
  }
  return { index: Number(query.index), waitMs: Math.min(waitMs, MAX_WAIT_MS) };
}

/**
 * Waits until `journal` has an event after `query.index`, `query.waitMs` passes, or the client goes away.
 * Effects: one journal subscription, closed before returning.
 */
export async function blockingWait(
  journal: Journal,
  query: BlockingQuery,
  client: IncomingMessage,
): Promise<void> {
  if ((await journal.head()) > query.index) return;
  const sub = journal.subscribe(query.index);
  let timer: NodeJS.Timeout | undefined;
  let onClose: (() => void) | undefined;
  try {
    await Promise.race([
      (async () => {
        for await (const _ of sub) return;
      })(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, query.waitMs);
        onClose = resolve;
        client.once('close', onClose);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onClose) client.off('close', onClose);
    await sub.close();
  }
}
