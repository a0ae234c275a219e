import { join } from 'node:path';
import t from 'tap';
import { startTestSupervisor } from '../helpers/supervisor.ts';
import { openSse, type SseClient } from '../helpers/sse.ts';
import { docValidator } from '../helpers/schemaValidator.ts';

/**
 * The client flow of spec 4.4 rule 2 against a real supervisor: POST /v0/city, then open the supervisor
 * stream from the 202's event_cursor and read until the terminal event of the request_id. With no city
 * before the POST, the stream must not answer 503 (rule 3), and it must replay nothing before the cursor.
 */

async function until(sse: SseClient, match: (data: Record<string, unknown>) => boolean) {
  const seen: Array<Record<string, unknown>> = [];
  for (;;) {
    const data = JSON.parse((await sse.nextEvent(10_000)).data) as Record<string, unknown>;
    seen.push(data);
    if (match(data)) return seen;
  }
}

t.test(
  'create, then stream from event_cursor to the terminal event: no 503, no unrelated backlog',
  async (t) => {
    const s = await startTestSupervisor(t, { tickMs: 200 });
    const before = await openSse(`${s.url}/v0/events/stream`);
    t.equal(before.status, 503, 'no city yet: no providers');
    t.equal(JSON.parse(before.body).detail, 'no_providers: no event providers available');

    const res = await s.call('POST', '/v0/city', { dir: join(s.root, 'alpha'), start_command: 'echo hi' });
    t.equal(res.status, 202);
    const { request_id: requestId, event_cursor: cursor } = res.body as {
      request_id: string;
      event_cursor: string;
    };
    const sse = await openSse(`${s.url}/v0/events/stream?after_cursor=${encodeURIComponent(cursor)}`);
    t.equal(sse.status, 200, 'never 503 after a successful 202');
    const seen = await until(
      sse,
      (d) =>
        (d.type === 'request.result.city.create' || d.type === 'request.failed') &&
        (d.payload as { request_id?: string }).request_id === requestId,
    );
    const terminal = seen.at(-1)!;
    t.match(terminal, {
      type: 'request.result.city.create',
      city: 'alpha',
      payload: { request_id: requestId },
    });
    t.ok(
      seen.some((d) => d.type === 'city.created' && d.city === 'alpha'),
      "the new city's own city.created arrives too: its log joined the stream",
    );
    const startup = (await s.log.list()).filter((e) => e.type === 'supervisor.started').length;
    t.ok(startup > 0, 'the supervisor recorded its start before the POST');
    t.notOk(
      seen.some((d) => d.type === 'supervisor.started'),
      'nothing from before the cursor was replayed',
    );
    const v = docValidator(
      (await (await fetch(`${s.url}/v0/schema/openapi.json`)).json()) as object,
      (await (await fetch(`${s.url}/v0/schema/events.json`)).json()) as object,
    );
    for (const d of seen) t.same(v.line(d, 'supervisorStreamLine'), [], `${String(d.type)} is a valid line`);
    sse.close();
  },
);

t.test("unregistering the last city: its 202's event_cursor still opens the stream (no 503)", async (t) => {
  const s = await startTestSupervisor(t, { tickMs: 200 });
  const created = await s.call('POST', '/v0/city', { dir: join(s.root, 'solo'), start_command: 'echo hi' });
  t.equal(created.status, 202);
  const first = await openSse(
    `${s.url}/v0/events/stream?after_cursor=${encodeURIComponent((created.body as { event_cursor: string }).event_cursor)}`,
  );
  await until(first, (d) => d.type === 'request.result.city.create');
  first.close();

  const res = await s.call('POST', '/v0/city/solo/unregister');
  t.equal(res.status, 202);
  const { request_id: requestId, event_cursor: cursor } = res.body as {
    request_id: string;
    event_cursor: string;
  };
  // Let the reconciler finish, so no city is attached any more when the client comes for its result.
  for (let i = 0; i < 100; i++) {
    const list = (await s.call('GET', '/v0/cities')).body as { items?: unknown[] | null };
    if ((list.items ?? []).length === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const sse = await openSse(`${s.url}/v0/events/stream?after_cursor=${encodeURIComponent(cursor)}`);
  t.equal(sse.status, 200, 'never 503 after a successful 202');
  const seen = await until(
    sse,
    (d) =>
      (d.type === 'request.result.city.unregister' || d.type === 'request.failed') &&
      (d.payload as { request_id?: string }).request_id === requestId,
  );
  t.match(seen.at(-1), { type: 'request.result.city.unregister', city: 'solo' });
  sse.close();
});
