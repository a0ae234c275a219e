import t from 'tap';
import { UnavailableError } from '../../actors/runtime/errors.ts';
import type { Journal } from '../../actors/runtime/journal/journal.ts';
import { backendEnv, call, cityHarness } from './helpers.ts';

/**
 * A journal that refuses one event type, as a disk filling up or a broker going away between a
 * command's state event and its notice would.
 */
function refusing(journal: Journal, type: string): Journal {
  return {
    name: journal.name,
    list: (filter) => journal.list(filter),
    head: () => journal.head(),
    subscribe: (afterSeq) => journal.subscribe(afterSeq),
    close: () => journal.close(),
    append: (draft, options) =>
      draft.type === type
        ? Promise.reject(new UnavailableError('cannot append: disk full', 'journal_unavailable'))
        : journal.append(draft, options),
  };
}

t.test('a mail send whose notice is refused after its bead landed is no refusal', async (t) => {
  const env = await backendEnv(t, 'memory');
  const h = await cityHarness(t, env!, { wrap: (j) => refusing(j, 'mail.sent') });
  const body = { to: 'bob', subject: 'hello', body: 'hi' };
  const res = await call(h, 'POST', '/mail', body, { 'idempotency-key': 'm-1' });
  t.equal(res.statusCode, 503);
  t.match(
    res.json().detail,
    /^journal_outcome_unknown: .*part of the write was stored.*same Idempotency-Key/,
    `says the write is partly stored and how to retry: ${res.body}`,
  );
  const retry = await call(h, 'POST', '/mail', body, { 'idempotency-key': 'm-1' });
  t.equal(retry.statusCode, 201, 'the keyed retry answers the stored message');
  t.equal((await h.journal.list({ type: 'bead.created' })).length, 1, 'one message bead, not two');
});
