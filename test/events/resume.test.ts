import t, { type Test } from 'tap';
import { parseCursor } from '../../actors/runtime/cursor.ts';
import type { Journal } from '../../actors/runtime/journal/journal.ts';
import { BACKEND_CASES } from '../helpers/eventBackends.ts';
import { eventsServer, type EventsServer } from '../helpers/eventsServer.ts';
import { openSse } from '../helpers/sse.ts';

/**
 * Resume under load: a producer appends steadily while a client reads a random number of frames, drops
 * the connection (or the server ends it), and reconnects from the last id it saw, a hundred times,
 * alternating the Last-Event-ID header and the query parameter. Whatever the interleaving, the client
 * must end up with every event exactly once, in order.
 */

const RECONNECTS = 100;

/** Appends to each journal every `ms` until stopped; resolves the number of appends when stopped. */
function produce(journals: Journal[], ms: number): { stop: () => Promise<number> } {
  let n = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      n++;
      await Promise.all(
        journals.map((j) => j.append({ type: 'load.tick', actor: 'producer', payload: { n } })),
      );
      await new Promise((r) => setTimeout(r, ms));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return n;
    },
  };
}

/** One connection: reads up to `count` events (or until the stream ends), returns their ids and data. */
async function readSome(
  url: string,
  headers: Record<string, string>,
  count: number,
  srv: EventsServer,
  serverCut: boolean,
) {
  const sse = await openSse(url, headers);
  if (sse.status !== 200) throw new Error(`status ${sse.status}: ${sse.body}`);
  const got: Array<{ id: string; data: { seq: number; city?: string } }> = [];
  try {
    for (let i = 0; i < count; i++) {
      if (serverCut && i === Math.floor(count / 2)) srv.streams.closeAll('ended');
      const frame = await sse.nextEvent(3000);
      got.push({ id: frame.id!, data: JSON.parse(frame.data) });
    }
  } catch (err) {
    // The server ended the stream (closeAll): a clean end, the client resumes like a browser would.
    if (!(err instanceof Error && err.message === 'stream ended')) throw err;
  }
  sse.close();
  return got;
}

async function cityScope(t: Test, srv: EventsServer, alpha: Journal) {
  const producer = produce([alpha], 2);
  const seqs: number[] = [];
  let badIds = 0;
  let last: string | undefined;
  for (let i = 0; i < RECONNECTS; i++) {
    const byHeader = i % 2 === 1;
    const url =
      `${srv.base}/v0/city/alpha/events/stream` +
      (last === undefined ? '?after_seq=0' : byHeader ? '' : `?after_seq=${last}`);
    const headers: Record<string, string> = last !== undefined && byHeader ? { 'last-event-id': last } : {};
    const got = await readSome(url, headers, 1 + Math.floor(Math.random() * 20), srv, i % 10 === 9);
    for (const g of got) {
      seqs.push(g.data.seq);
      if (g.id !== String(g.data.seq)) badIds++;
      last = g.id;
    }
  }
  const total = await producer.stop();
  const rest = await readSome(
    `${srv.base}/v0/city/alpha/events/stream`,
    { 'last-event-id': last! },
    total - seqs.length,
    srv,
    false,
  );
  seqs.push(...rest.map((g) => g.data.seq));
  t.equal(badIds, 0, 'every id is the seq of its event');
  t.equal(seqs.length, total, `${total} events, none missing, none repeated`);
  t.ok(
    seqs.every((s, i) => s === i + 1),
    'in order without gaps or duplicates',
  );
}

async function supervisorScope(t: Test, srv: EventsServer, alpha: Journal, beta: Journal) {
  const producer = produce([alpha, beta], 3);
  let badIds = 0;
  const seen = new Map<string, number[]>([
    ['alpha', []],
    ['beta', []],
  ]);
  let last: string | undefined;
  for (let i = 0; i < RECONNECTS; i++) {
    const byHeader = i % 2 === 1;
    const q =
      last === undefined ? '?after_cursor=0' : byHeader ? '' : `?after_cursor=${encodeURIComponent(last)}`;
    const headers: Record<string, string> = last !== undefined && byHeader ? { 'last-event-id': last } : {};
    const got = await readSome(
      `${srv.base}/v0/events/stream${q}`,
      headers,
      1 + Math.floor(Math.random() * 20),
      srv,
      i % 10 === 9,
    );
    for (const g of got) {
      seen.get(g.data.city!)!.push(g.data.seq);
      if (parseCursor(g.id).get(g.data.city!) !== g.data.seq) badIds++;
      last = g.id;
    }
  }
  const total = await producer.stop();
  const missing = 2 * total - seen.get('alpha')!.length - seen.get('beta')!.length;
  const rest = await readSome(
    `${srv.base}/v0/events/stream`,
    { 'last-event-id': last! },
    missing,
    srv,
    false,
  );
  for (const g of rest) seen.get(g.data.city!)!.push(g.data.seq);
  t.equal(badIds, 0, "every id is a cursor whose pair for the event's city is its seq");
  for (const [city, seqs] of seen) {
    t.equal(seqs.length, total, `${city}: ${total} events`);
    t.ok(
      seqs.every((s, i) => s === i + 1),
      `${city}: in order without gaps or duplicates`,
    );
  }
}

for (const backend of BACKEND_CASES) {
  t.test(`${backend.name}: the city stream resumes gap-free across ${RECONNECTS} disconnects`, async (t) => {
    const open = await backend.setup(t);
    if (!open) return;
    const srv = await eventsServer(t);
    const alpha = srv.addCity('alpha', await open('alpha'));
    await cityScope(t, srv, alpha);
  });

  t.test(
    `${backend.name}: the supervisor stream resumes gap-free across ${RECONNECTS} disconnects`,
    async (t) => {
      const open = await backend.setup(t);
      if (!open) return;
      const srv = await eventsServer(t, { supervisorLog: await open('__supervisor__') });
      const alpha = srv.addCity('alpha', await open('alpha'));
      const beta = srv.addCity('beta', await open('beta'));
      await supervisorScope(t, srv, alpha, beta);
    },
  );
}
