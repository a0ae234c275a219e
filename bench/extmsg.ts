/**
 * `node dist/bench/extmsg.js`: the extmsg family's figures, printed as ONE JSON line on stdout (progress on
 * stderr). One city on the file journal serves both families from its one log runtime, over a real
 * loopback socket:
 *
 * 1. inbound throughput: `POST /v0/city/{c}/extmsg/inbound` (each a new provider message id, routed by a
 *    binding) with a window of requests in flight; the floor is `POST /v0/city/{c}/beads` with the same
 *    client and window in the same run (target: inbound ≥ 0.5 × bead create).
 * 2. outbound delivery latency: `POST /v0/city/{c}/extmsg/outbound` one at a time to a local HTTP adapter;
 *    the figure is the time from the request to the adapter holding the publish (p50/p99), and the whole
 *    round trip (the answer waits for the acknowledgement to be journaled). The floor is a bare POST from
 *    the same client to the same adapter.
 *
 * Sizes: BENCH_QUICK=1 or BENCH_EXTMSG_N (messages per round), BENCH_EXTMSG_LATENCY (outbound requests).
 * Effects: a temp dir, loopback sockets.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BEAD_SERVICE, startBeadService } from '../actors/beads/index.ts';
import { EXTMSG_SERVICE, startExtmsgService } from '../actors/extmsg/index.ts';
import { FileJournalBackend } from '../actors/runtime/journal/fileJournal.ts';
import { SUPERVISOR_LOG } from '../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../actors/runtime/journal/memoryJournal.ts';
import { LiveCities } from '../actors/supervisor/liveCities.ts';
import { LogRuntime } from '../actors/runtime/logRuntime/logRuntime.ts';
import { memoryApp } from '../test/helpers/app.ts';
import { median, quantile, throughput } from './journalKit.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const sizes = {
  messages: Number(process.env.BENCH_EXTMSG_N ?? (quick ? 2_000 : 10_000)),
  window: 32,
  latency: Number(process.env.BENCH_EXTMSG_LATENCY ?? (quick ? 300 : 1_000)),
};
const log = (message: string): void => void process.stderr.write(`bench extmsg: ${message}\n`);
const round = (v: number, digits = 3): number => Math.round(v * 10 ** digits) / 10 ** digits;

function client(base: string, window: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: window });
  const url = new URL(base);
  const send = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: body
            ? {
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(body),
                'x-gc-request': '1',
              }
            : {},
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

/** A local adapter: answers every publish with a receipt and tells `onPublish` when one arrives. */
async function localAdapter(onPublish: () => void) {
  let n = 0;
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      onPublish();
      const body = JSON.parse(text) as { Conversation: unknown };
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          MessageID: `m${++n}`,
          Conversation: body.Conversation,
          Delivered: true,
          FailureKind: '',
          RetryAfter: 0,
          Metadata: {},
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function fig(name: string, value: number, unit: string, floor?: [number, string], target?: string): object {
  return {
    name,
    value,
    unit,
    ...(floor ? { floor: floor[0], floor_name: floor[1] } : {}),
    ...(target ? { target } : {}),
  };
}

const conversation = {
  scope_id: 'T',
  provider: 'bench',
  account_id: 'a',
  conversation_id: 'C',
  kind: 'room',
};

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-bench-extmsg-'));
  const name = 'bench-extmsg';
  const backend = new FileJournalBackend();
  const journal = await backend.open({ name, file: join(dir, '.gc', 'events.jsonl') });
  const runtime = new LogRuntime(journal, 0, { onError: (err) => log(String(err)) });
  const beads = await startBeadService({ name, path: '', journal, log: runtime });
  const extmsg = await startExtmsgService({ name, journal, log: runtime });
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const { app } = await memoryApp({ cities });
  cities.set({
    name,
    path: dir,
    journal,
    running: true,
    services: { [BEAD_SERVICE]: beads.service, [EXTMSG_SERVICE]: extmsg.service },
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const path = `/v0/city/${name}`;
  let publishedAt = 0;
  const adapter = await localAdapter(() => (publishedAt = performance.now()));
  const http = client(base, sizes.window);
  const figures: object[] = [];
  try {
    const setup = async (p: string, body: object) => {
      const res = await http.send('POST', `${path}${p}`, JSON.stringify(body));
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${res.body}`);
    };
    await setup('/extmsg/adapters', { provider: 'bench', account_id: 'a', callback_url: adapter.url });
    await setup('/extmsg/bind', { conversation, session_id: 's1' });

    // 1. Inbound vs bead create, alternating rounds, medians.
    let next = 0;
    const inbound = (i: number) =>
      http
        .send(
          'POST',
          `${path}/extmsg/inbound`,
          JSON.stringify({
            message: {
              provider_message_id: `p${next++}-${i}`,
              conversation,
              actor: { id: 'u', display_name: 'U', is_bot: false },
              text: `message ${i}`,
              received_at: '2030-01-01T00:00:00Z',
            },
          }),
        )
        .then((r) => {
          if (r.status !== 200) throw new Error(`inbound ${r.status}: ${r.body}`);
        });
    const create = (i: number) =>
      http
        .send('POST', `${path}/beads`, JSON.stringify({ title: `bead ${i}`, labels: ['bench'] }))
        .then((r) => {
          if (r.status !== 201) throw new Error(`create ${r.status}: ${r.body}`);
        });
    await throughput(300, sizes.window, inbound);
    await throughput(300, sizes.window, create);
    const rates = { inbound: [] as number[], create: [] as number[] };
    const inboundRate = await median(3, async () => {
      log('inbound round');
      const r = await throughput(sizes.messages, sizes.window, inbound);
      rates.inbound.push(r);
      log('bead create round');
      rates.create.push(await throughput(sizes.messages, sizes.window, create));
      return r;
    });
    const createRate = quantile(
      [...rates.create].sort((a, b) => a - b),
      0.5,
    );
    figures.push(
      fig(
        'inbound accepted over HTTP, file journal',
        inboundRate,
        'req/s',
        [createRate, 'bead create over HTTP, same run'],
        '≥ 0.5 × floor',
      ),
    );

    // 2. Outbound delivery latency, one at a time.
    const one = client(base, 1);
    const bare = client(adapter.url, 1);
    const delivery: number[] = [];
    const roundTrip: number[] = [];
    const floor: number[] = [];
    const body = JSON.stringify({ session_id: 's1', conversation, text: 'hello' });
    for (let i = 0; i < sizes.latency + 20; i++) {
      const started = performance.now();
      const res = await one.send('POST', `${path}/extmsg/outbound`, body);
      const done = performance.now();
      const delivered = publishedAt;
      if (
        res.status !== 200 ||
        !(JSON.parse(res.body) as { Receipt: { Delivered: boolean } }).Receipt.Delivered
      )
        throw new Error(`outbound ${res.status}: ${res.body}`);
      const t0 = performance.now();
      await bare.send('POST', '/publish', JSON.stringify({ Conversation: conversation, Text: 'hello' }));
      const t1 = performance.now();
      if (i < 20) continue;
      delivery.push(delivered - started);
      roundTrip.push(done - started);
      floor.push(t1 - t0);
    }
    one.close();
    bare.close();
    const q = (v: number[], p: number) =>
      round(
        quantile(
          [...v].sort((a, b) => a - b),
          p,
        ),
      );
    figures.push(
      fig(
        'outbound delivery to a local adapter p99',
        q(delivery, 0.99),
        'ms',
        [q(floor, 0.99), 'bare POST to the adapter'],
        '≤ 20 ms',
      ),
      fig('outbound delivery to a local adapter p50', q(delivery, 0.5), 'ms', [
        q(floor, 0.5),
        'bare POST to the adapter',
      ]),
      fig('outbound round trip (ack journaled) p99', q(roundTrip, 0.99), 'ms'),
    );
    process.stdout.write(
      `${JSON.stringify({
        scenario: 'extmsg',
        mode: quick ? 'quick' : 'full',
        sizes,
        inbound_rounds_per_s: rates.inbound,
        create_rounds_per_s: rates.create,
        outbound: {
          delivery_p50_ms: q(delivery, 0.5),
          delivery_p99_ms: q(delivery, 0.99),
          round_trip_p50_ms: q(roundTrip, 0.5),
          round_trip_p99_ms: q(roundTrip, 0.99),
          bare_post_p99_ms: q(floor, 0.99),
        },
        figures,
      })}\n`,
    );
  } finally {
    http.close();
    await app.close();
    await adapter.close();
    await extmsg.stop();
    await beads.stop();
    await runtime.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
