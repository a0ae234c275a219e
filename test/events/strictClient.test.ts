import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openSse, type SseClient } from '../helpers/sse.ts';
import { strictRejections } from '../helpers/strictClient.ts';
import { startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

/**
 * Issue #11: a client that validates events against the closed union of upstream's types (as upstream's
 * dashboard does) must be able to read a real supervisor's lists and streams after a create, a clean
 * restart and an unregister: our bookkeeping (`request.accepted`, `supervisor.stopped`) is served only to
 * a client that asks for it with `include=internal`.
 */

type Wire = { type: string; city: string; seq: number; payload: { request_id?: string } };

/** Every event frame of `sse` up to and including the first that `last` matches. */
async function readUntil(sse: SseClient, last: (e: Wire) => boolean): Promise<Wire[]> {
  const seen: Wire[] = [];
  for (;;) {
    const e = JSON.parse((await sse.nextEvent(15_000)).data) as Wire;
    seen.push(e);
    if (last(e)) return seen;
  }
}

const count = (events: Wire[], type: string) => events.filter((e) => e.type === type).length;

t.test('create, clean restart, create, unregister: a strict client accepts every event served', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gc-strict-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const first = await startTestSupervisor(t, { root, tickMs: 200 });
  const alpha = await first.call('POST', '/v0/city', {
    dir: join(first.root, 'alpha'),
    start_command: 'echo hi',
  });
  t.equal(alpha.status, 202);
  await waitForTerminal(first.log, alpha.body.request_id, 15_000);
  await first.close();

  const s = await startTestSupervisor(t, { root, tickMs: 200 });
  const beta = await s.call('POST', '/v0/city', { dir: join(s.root, 'beta'), start_command: 'echo hi' });
  t.equal(beta.status, 202);
  // From the very start of every log: the first run's bookkeeping is replayed too, unless hidden.
  const strict = await openSse(`${s.url}/v0/events/stream?after_cursor=0`);
  const optedIn = await openSse(`${s.url}/v0/events/stream?after_cursor=0&include=internal`);
  t.equal(strict.status, 200);
  t.equal(optedIn.status, 200);
  await waitForTerminal(s.log, beta.body.request_id, 15_000);
  const gone = await s.call('POST', '/v0/city/alpha/unregister');
  t.equal(gone.status, 202);
  const unregistered = (e: Wire) =>
    e.type === 'request.result.city.unregister' && e.payload.request_id === gone.body.request_id;

  const streamed = await readUntil(strict, unregistered);
  t.same(strictRejections(streamed), [], `all ${streamed.length} streamed events are upstream types`);
  t.equal(count(streamed, 'request.result.city.create'), 2, 'both creates completed on the stream');
  t.equal(count(streamed, 'supervisor.started'), 2, 'both starts');
  const everything = await readUntil(optedIn, unregistered);
  t.equal(count(everything, 'request.accepted'), 3, 'opted in: each accepted request');
  t.equal(count(everything, 'supervisor.stopped'), 1, 'opted in: the clean stop');
  strict.close();
  optedIn.close();

  const list = (await s.call('GET', '/v0/events')).body as { items: Wire[] };
  t.same(strictRejections(list.items), [], `all ${list.items.length} listed events are upstream types`);
  t.ok(list.items.some(unregistered), 'the list has the unregister result');
  const all = (await s.call('GET', '/v0/events?include=internal')).body as { items: Wire[] };
  t.equal(count(all.items, 'request.accepted'), 3);
  t.equal(count(all.items, 'supervisor.stopped'), 1);
  t.ok(strictRejections(all.items).length > 0, 'the opted-in list is exactly what a strict client rejects');
});
