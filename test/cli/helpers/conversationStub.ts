import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A stand-in for one city's conversation routes (transcript, the session stream, pending, respond and the
 * city's pending list; families.md "sessions"), for checking what `gc session transcript|logs|pending|respond`
 * send and how they read the answers, including a dropped stream and Problems on demand. It follows the wire
 * contract; it is not the session service. Session `gc-1` (alias `mayor`) exists; any other id is a 404.
 */

/** One conversation entry: its uuid (the stream's `id:`), the turn it shows, and the provider's raw line. */
export interface StubEntry {
  uuid: string;
  turn: { role: string; text: string; timestamp?: string };
  raw: Record<string, unknown>;
}

/** One request as the stub received it. */
export interface ConversationRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  header: string | undefined;
  lastEventId: string | undefined;
  body: unknown;
}

export class ConversationStub {
  readonly city = 'town';
  readonly entries: StubEntry[] = [];
  readonly received: ConversationRequest[] = [];
  /** Answers these `METHOD path` keys (path without the city prefix) with this Problem. */
  readonly problems = new Map<string, { status: number; detail: string }>();
  /** The transcript page's pagination (absent: none). */
  pagination: Record<string, unknown> | undefined;
  /** The prompt session gc-1 waits on. */
  pending: Record<string, unknown> | undefined;
  state = 'active';
  url = '';
  #server: Server;
  #streams = new Set<{ res: ServerResponse; raw: boolean }>();
  #sockets = new Set<Socket>();

  constructor() {
    this.#server = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8').on('data', (c: string) => (text += c));
      req.on('end', () => this.#handle(req, res, text));
    });
    this.#server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    const addr = this.#server.address();
    this.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  /** Appends an entry (uuid `u<n>`) and pushes it to the open streams as one frame. */
  say(role: string, text: string): StubEntry {
    const n = this.entries.length + 1;
    const entry = { uuid: `u${n}`, turn: { role, text }, raw: { type: role, uuid: `u${n}`, n } };
    this.entries.push(entry);
    for (const s of this.#streams) this.#entries(s.res, s.raw, [entry]);
    return entry;
  }

  /** Ends every open stream cleanly (as a supervisor restarting does). */
  endStreams(): void {
    for (const s of this.#streams) s.res.end();
    this.#streams.clear();
  }

  /** The number of stream connections opened so far. */
  get connections(): number {
    return this.streamRequests.length;
  }

  get streamRequests(): ConversationRequest[] {
    return this.received.filter((r) => r.path.endsWith('/stream'));
  }

  #head(): string {
    return '"id":"gc-1","template":"mayor","provider":"mock"';
  }

  #entries(res: ServerResponse, raw: boolean, entries: StubEntry[]): void {
    if (entries.length === 0) return;
    const data = raw
      ? `{${this.#head()},"format":"raw","messages":${JSON.stringify(entries.map((e) => e.raw))}}`
      : `{${this.#head()},"format":"conversation","turns":${JSON.stringify(entries.map((e) => e.turn))}}`;
    res.write(`id: ${entries.at(-1)!.uuid}\nevent: ${raw ? 'message' : 'turn'}\ndata: ${data}\n\n`);
  }

  #send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
    res.writeHead(status, { 'content-type': type });
    res.end(JSON.stringify(body));
  }

  #problem(res: ServerResponse, status: number, detail: string): void {
    this.#send(res, status, { title: 'Error', status, detail }, 'application/problem+json');
  }

  #handle(req: IncomingMessage, res: ServerResponse, text: string): void {
    const u = new URL(req.url ?? '/', 'http://stub');
    const method = req.method ?? 'GET';
    const header = req.headers['x-gc-request'];
    const last = req.headers['last-event-id'];
    const body: unknown = text ? JSON.parse(text) : undefined;
    this.received.push({
      method,
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      header: typeof header === 'string' ? header : undefined,
      lastEventId: typeof last === 'string' ? last : undefined,
      body,
    });
    if (u.pathname === '/health') return this.#send(res, 200, { status: 'ok' });
    if (u.pathname === '/v0/cities') {
      const items = [{ name: this.city, path: '/cities/stub', running: true, status: 'running' }];
      return this.#send(res, 200, { items, total: 1 });
    }
    const rest = u.pathname.slice(`/v0/city/${this.city}`.length);
    const problem = this.problems.get(`${method} ${rest}`);
    if (problem) return this.#problem(res, problem.status, problem.detail);
    if (rest === '/pending' && method === 'GET') {
      const items = this.pending
        ? [{ session_id: 'gc-1', request_id: this.pending.request_id, kind: this.pending.kind }]
        : [];
      return this.#send(res, 200, { items, total: items.length });
    }
    const m = /^\/session\/([^/]+)(?:\/([a-z]+))?$/.exec(rest);
    if (!m) return this.#problem(res, 404, `not_found: no route for ${method} ${rest}`);
    const id = decodeURIComponent(m[1]!);
    if (id !== 'gc-1' && id !== 'mayor')
      return this.#problem(res, 404, `not_found: session not found: ${id}`);
    const raw = u.searchParams.get('format') === 'raw';
    switch (`${method} ${m[2] ?? ''}`) {
      case 'GET ':
        return this.#send(res, 200, { id: 'gc-1', template: 'mayor', state: this.state });
      case 'GET transcript':
        return this.#send(res, 200, {
          id: 'gc-1',
          template: 'mayor',
          provider: 'mock',
          format: raw ? 'raw' : 'conversation',
          ...(raw
            ? { messages: this.entries.map((e) => e.raw) }
            : { turns: this.entries.map((e) => e.turn) }),
          ...(this.pagination ? { pagination: this.pagination } : {}),
        });
      case 'GET stream':
        return this.#stream(res, raw, typeof last === 'string' ? last : undefined);
      case 'GET pending':
        return this.#send(res, 200, { supported: true, ...(this.pending ? { pending: this.pending } : {}) });
      case 'POST respond':
        return this.#respond(res, header, body as { request_id?: string });
      default:
        return this.#problem(res, 404, `not_found: no route for ${method} ${rest}`);
    }
  }

  /** The newest entries (all of them, or those after `last`), activity, a pending prompt, a heartbeat. */
  #stream(res: ServerResponse, raw: boolean, last: string | undefined): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'GC-Session-State': this.state });
    res.flushHeaders();
    const from = last === undefined ? 0 : this.entries.findIndex((e) => e.uuid === last) + 1;
    this.#entries(res, raw, this.entries.slice(from));
    res.write(`event: activity\ndata: {"activity":"idle"}\n\n`);
    if (this.pending) res.write(`event: pending\ndata: ${JSON.stringify(this.pending)}\n\n`);
    res.write(`event: heartbeat\ndata: {"timestamp":"${new Date().toISOString()}"}\n\n`);
    if (this.state === 'closed') return void res.end();
    const s = { res, raw };
    this.#streams.add(s);
    res.on('close', () => this.#streams.delete(s));
  }

  #respond(res: ServerResponse, header: string | string[] | undefined, body: { request_id?: string }): void {
    if (!header) return this.#problem(res, 403, 'csrf: X-GC-Request header required on mutation endpoints');
    if (!this.pending) return this.#problem(res, 409, 'no_pending: session gc-1 has no pending interaction');
    if (body.request_id !== undefined && body.request_id !== this.pending.request_id)
      return this.#problem(res, 409, `invalid_interaction: request ${body.request_id} is not pending`);
    this.pending = undefined;
    this.#send(res, 202, { status: 'accepted', id: 'gc-1' });
  }
}
