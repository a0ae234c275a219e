import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import {
  EXTMSG_SERVICE,
  startExtmsgService,
  type ExtmsgServiceHandle,
  type ExtmsgServiceOptions,
} from '../../actors/extmsg/index.ts';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import type { Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import type { App } from '../../http/app.ts';
import type { AppDeps } from '../../http/deps.ts';
import type { ConversationRef } from '../../schemas/extmsg.ts';
import type { PublishRequest } from '../../schemas/extmsgEvents.ts';
import { memoryApp } from '../helpers/app.ts';

let cities = 0;

/** A running city with an extmsg service on a file journal, served by an app, restartable from its log. */
export interface ExtmsgHarness {
  name: string;
  app: App;
  deps: AppDeps;
  journal: Journal;
  handle: ExtmsgServiceHandle;
  base: string;
  /** Stops the service, closes the journal, reopens it on a new backend and starts the service again. */
  restart(options?: ExtmsgServiceOptions): Promise<void>;
  /** Every event of the city log so far. */
  events(): Promise<JournalEvent[]>;
}

/** Fast retries for tests: the backoff starts at 5 ms. */
export const FAST: ExtmsgServiceOptions = {
  delivery: { baseMs: 5, factor: 2, capMs: 50, maxAttempts: 6, timeoutMs: 2000 },
  onError: () => undefined,
};

export async function extmsgHarness(t: Test, options: ExtmsgServiceOptions = FAST): Promise<ExtmsgHarness> {
  const name = `xcity${++cities}-${randomBytes(3).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'gc-extmsg-'));
  const location = { name, file: join(dir, '.gc', 'events.jsonl') };
  const { app, deps } = await memoryApp();
  let backend = new FileJournalBackend();
  const journal = await backend.open(location);
  const handle = await startExtmsgService({ name, journal }, options);
  const attach = (h: ExtmsgHarness) =>
    deps.cities.set({
      name,
      path: dir,
      journal: h.journal,
      running: true,
      services: { [EXTMSG_SERVICE]: h.handle.service },
    });
  const h: ExtmsgHarness = {
    name,
    app,
    deps,
    journal,
    handle,
    base: `/v0/city/${name}`,
    restart: async (again = options) => {
      await h.handle.stop();
      await backend.close();
      backend = new FileJournalBackend();
      h.journal = await backend.open(location);
      h.handle = await startExtmsgService({ name, journal: h.journal }, again);
      attach(h);
    },
    events: () => h.journal.list({ afterSeq: 0, limit: 100_000 }),
  };
  attach(h);
  t.teardown(async () => {
    await app.close();
    await h.handle.stop();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  });
  return h;
}

/** A JSON request to the harness's city; mutations get X-GC-Request. */
export function call(
  h: ExtmsgHarness,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return h.app.inject({
    method,
    url: `${h.base}${path}`,
    headers: method === 'GET' ? headers : { 'x-gc-request': '1', ...headers },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

/** A conversation reference on the test provider. */
export const conv = (id = 'C1', extra: Partial<ConversationRef> = {}): ConversationRef => ({
  scope_id: 'T1',
  provider: 'chat',
  account_id: 'acct',
  conversation_id: id,
  kind: 'room',
  ...extra,
});

/** An inbound message body. */
export const inbound = (id: string, text = `hello ${id}`, conversation = conv(), extra: object = {}) => ({
  message: {
    provider_message_id: id,
    conversation,
    actor: { id: 'U1', display_name: 'Ann', is_bot: false },
    text,
    received_at: '2030-01-01T00:00:00Z',
    ...extra,
  },
});

/** How the test adapter answers a publish. */
export type AdapterMode = 'ok' | 'fail503' | 'reject400';

/**
 * A small HTTP adapter: `POST /publish` answers a PascalCase receipt (`ok`), 503 (`fail503`) or 400
 * (`reject400`); every request body is kept. `down()` closes the socket (connection refused) and `up()`
 * listens again on the same port.
 */
export interface TestAdapter {
  url: string;
  mode: AdapterMode;
  requests: PublishRequest[];
  /** Bodies it acknowledged (answered `Delivered: true`). */
  acked: PublishRequest[];
  /** Resolves once it has received `n` requests in all. */
  received(n: number): Promise<void>;
  down(): Promise<void>;
  up(): Promise<void>;
}

export async function testAdapter(t: Test, mode: AdapterMode = 'ok'): Promise<TestAdapter> {
  const waiters: { n: number; resolve: () => void }[] = [];
  let server: Server | undefined;
  let port = 0;
  const adapter: TestAdapter = {
    url: '',
    mode,
    requests: [],
    acked: [],
    received: (n) =>
      adapter.requests.length >= n
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ n, resolve })),
    down: async () => {
      const s = server;
      server = undefined;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    up: async () => {
      const s = createServer((req, res) => void handle(req, res));
      await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', () => resolve()));
      port = (s.address() as AddressInfo).port;
      server = s;
      adapter.url = `http://127.0.0.1:${port}`;
    },
  };
  let n = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    const body = JSON.parse(text) as PublishRequest;
    adapter.requests.push(body);
    for (const w of waiters.filter((w) => adapter.requests.length >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    if (req.url !== '/publish') return void res.writeHead(404).end();
    if (adapter.mode === 'fail503') return void res.writeHead(503).end('down');
    if (adapter.mode === 'reject400') return void res.writeHead(400).end('no');
    adapter.acked.push(body);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        MessageID: `m-${++n}`,
        Conversation: body.Conversation,
        Delivered: true,
        FailureKind: '',
        RetryAfter: 0,
        Metadata: { adapter: 'test' },
      }),
    );
  };
  await adapter.up();
  t.teardown(() => adapter.down());
  return adapter;
}

/** Registers `adapter` for the test provider, binds conversation `c` to `session`. */
export async function wire(
  t: Test,
  h: ExtmsgHarness,
  adapter: { url: string } | undefined,
  session = 's1',
  c = conv(),
) {
  const reg = await call(h, 'POST', '/extmsg/adapters', {
    provider: c.provider,
    account_id: c.account_id,
    ...(adapter ? { callback_url: adapter.url } : {}),
  });
  t.equal(reg.statusCode, 201, reg.body);
  const bind = await call(h, 'POST', '/extmsg/bind', { conversation: c, session_id: session });
  t.equal(bind.statusCode, 200, bind.body);
}
