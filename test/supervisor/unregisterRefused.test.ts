import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { inProcessSupervisor, type InProcessSupervisor } from '../faults/inProcess.ts';
import { refusingBackend } from '../helpers/refusingBackend.ts';
import { eventually } from '../helpers/supervisor.ts';

/**
 * An unregister is made durable (`request.accepted`) before the city's log records
 * `city.unregister_requested`. These cases refuse the second step, and the terminal event after it, to
 * check that an unregister either lands whole or leaves the city exactly as it was, and that its request
 * still gets exactly one terminal event.
 */

type Refused = Set<string>;

/** A fresh directory for one case's supervisor(s), removed after `t`. */
function tempRoot(t: Test): string {
  const root = mkdtempSync(join(tmpdir(), 'gc-unreg-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

async function start(
  t: Test,
  root: string,
  refused: Refused,
): Promise<{ sup: InProcessSupervisor; supLog: () => Promise<JournalEvent[]> }> {
  const backend = refusingBackend(new FileJournalBackend(), (_log, draft) => refused.has(draft.type));
  const sup = await inProcessSupervisor(root, { backend });
  t.teardown(() => sup.close().catch(() => undefined));
  return { sup, supLog: () => sup.supervisor.log.journal.list() };
}

const names = async (sup: InProcessSupervisor): Promise<string[]> =>
  ((await sup.call('GET', '/v0/cities')).body.items as Array<{ name: string }>).map((c) => c.name);

const requestsOf = (events: JournalEvent[], operation: string): JournalEvent[] =>
  events.filter(
    (e) => e.type === 'request.accepted' && (e.payload as { operation?: string }).operation === operation,
  );

const terminalsOf = (events: JournalEvent[], requestId: string): JournalEvent[] =>
  events.filter(
    (e) =>
      e.type !== 'request.accepted' &&
      e.type.startsWith('request.') &&
      (e.payload as { request_id?: string }).request_id === requestId,
  );

t.test('the supervisor log refuses request.accepted: 503 and nothing recorded anywhere', async (t) => {
  const root = tempRoot(t);
  const refused: Refused = new Set();
  const { sup, supLog } = await start(t, root, refused);
  await sup.createCity('gamma');
  const cityLog = sup.supervisor.live.get('gamma')!.journal;
  const heads = [await cityLog.head(), (await supLog()).length];

  refused.add('request.accepted');
  const res = await sup.call('POST', '/v0/city/gamma/unregister');
  t.equal(res.status, 503);
  await sup.supervisor.settled();
  t.same([await cityLog.head(), (await supLog()).length], heads, 'neither log has a new event');
  t.same(await names(sup), ['gamma'], 'the city is still registered');
  t.ok(sup.supervisor.live.get('gamma')?.running, 'and still running');
});

t.test(
  'the city log refuses city.unregister_requested: 503, the city untouched, the request failed',
  async (t) => {
    const root = tempRoot(t);
    const refused: Refused = new Set();
    const { sup, supLog } = await start(t, root, refused);
    await sup.createCity('gamma');

    refused.add('city.unregister_requested');
    const res = await sup.call('POST', '/v0/city/gamma/unregister');
    t.equal(res.status, 503, 'the client gets the journal outage');
    t.match(res.body, { status: 503, detail: /journal_unavailable/ }, 'as a Problem Details body');
    await sup.supervisor.settled();
    t.same(await names(sup), ['gamma'], 'the city is still registered');
    t.ok(sup.supervisor.live.get('gamma')?.running, 'and still running');

    const accepted = requestsOf(await supLog(), 'city.unregister');
    t.equal(accepted.length, 1, 'the request was accepted');
    const id = (accepted[0]!.payload as { request_id: string }).request_id;
    const terminals = terminalsOf(await supLog(), id);
    t.equal(terminals.length, 1, 'and has exactly one terminal event');
    t.match(terminals[0], {
      type: 'request.failed',
      payload: { request_id: id, operation: 'city.unregister', error_code: 'city_unregister_failed' },
    });

    refused.clear();
    const retry = await sup.call('POST', '/v0/city/gamma/unregister');
    t.equal(retry.status, 202, 'a retry once the log takes writes again is accepted');
    await eventually(async () => terminalsOf(await supLog(), retry.body.request_id).length === 1);
    t.equal(terminalsOf(await supLog(), retry.body.request_id)[0]!.type, 'request.result.city.unregister');
    await eventually(async () => (await names(sup)).length === 0);
  },
);

t.test(
  'both logs refuse after the accept: the reconciler fails the request once it can, the city untouched',
  async (t) => {
    const root = tempRoot(t);
    const refused: Refused = new Set();
    const { sup, supLog } = await start(t, root, refused);
    await sup.createCity('gamma');

    refused.add('city.unregister_requested').add('request.failed');
    const res = await sup.call('POST', '/v0/city/gamma/unregister');
    t.equal(res.status, 503);
    await sup.supervisor.settled();
    const [accepted] = requestsOf(await supLog(), 'city.unregister');
    const id = (accepted!.payload as { request_id: string }).request_id;
    t.same(terminalsOf(await supLog(), id), [], 'no terminal event while the supervisor log refuses it');
    t.same(
      sup.supervisor.log.pending().map((r) => r.request_id),
      [id],
      'the request is still pending',
    );
    t.equal(
      (await sup.call('POST', '/v0/city/gamma/unregister')).status,
      409,
      'and holds the city against another operation meanwhile',
    );

    refused.clear();
    await eventually(async () => terminalsOf(await supLog(), id).length === 1, 5000);
    t.match(terminalsOf(await supLog(), id)[0], {
      type: 'request.failed',
      payload: { error_code: 'city_unregister_failed', error_message: /never recorded/ },
    });
    t.same(await names(sup), ['gamma'], 'the city is still registered');
    t.ok(sup.supervisor.live.get('gamma')?.running, 'and still running');
  },
);

t.test(
  'a supervisor that stops between the accept and the city event fails the request when it restarts',
  async (t) => {
    const root = tempRoot(t);
    const refused: Refused = new Set();
    const first = await start(t, root, refused);
    await first.sup.createCity('gamma');
    refused.add('city.unregister_requested').add('request.failed');
    t.equal((await first.sup.call('POST', '/v0/city/gamma/unregister')).status, 503);
    await first.sup.close();

    const { sup, supLog } = await start(t, root, new Set());
    await sup.running('gamma');
    const [accepted] = requestsOf(await supLog(), 'city.unregister');
    const id = (accepted!.payload as { request_id: string }).request_id;
    await eventually(async () => terminalsOf(await supLog(), id).length === 1, 5000);
    t.equal(terminalsOf(await supLog(), id)[0]!.type, 'request.failed', 'failed after the restart');
    t.same(await names(sup), ['gamma'], 'the city is still registered and runs');
  },
);
