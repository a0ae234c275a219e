import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A stand-in for one city's session routes and its event stream (spec 4.2, families.md "sessions"), for
 * checking what `gc session` sends and how it reads the answers, including outcomes a real supervisor does
 * not produce on demand (a request.failed, a Problem at any route). It follows the wire contract; it is not
 * the session service.
 */
export interface StubSession {
  id: string;
  template: string;
  title: string;
  provider: string;
  session_name: string;
  state: string;
  running: boolean;
  attached: boolean;
  created_at: string;
  alias?: string;
}

/** One request as the stub received it. */
export interface Received {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The X-GC-Request header (mutations need one). */
  header: string | undefined;
  body: unknown;
}

interface StubEvent {
  seq: number;
  type: string;
  ts: string;
  actor: string;
  subject?: string;
  payload: Record<string, unknown>;
}

export class SessionStub {
  readonly city: string;
  readonly sessions: StubSession[] = [];
  readonly events: StubEvent[] = [];
  readonly received: Received[] = [];
  /** Answers these `METHOD path` keys (path without the city prefix) with this Problem. */
  readonly problems = new Map<string, { status: number; detail: string; errors?: unknown[] }>();
  /** Page size of GET /sessions. */
  pageSize = 2;
  /** How the next async request ends. */
  nextOutcome: { ok: true } | { ok: false; code: string; message: string } = { ok: true };
  /** Delay before an async request's events are written. */
  workMs = 100;
  /** Directory of the city as GET /v0/cities reports it. */
  cityPath = '/cities/stub';
  url = '';
  #server: Server;
  #streams = new Set<ServerResponse>();
  #sockets = new Set<Socket>();
  #requests = 0;

  constructor(city = 'town') {
    this.city = city;
    this.#server = createServer((req, res) => this.#read(req, res));
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

  /** Adds a session (id `gc-<n>`, session name `s-gc-<n>`) and returns it. */
  add(fields: Partial<StubSession> = {}): StubSession {
    const n = this.sessions.length + 1;
    const s: StubSession = {
      id: `gc-${n}`,
      template: 'mayor',
      title: `session ${n}`,
      provider: 'mock',
      session_name: `s-gc-${n}`,
      state: 'active',
      running: true,
      attached: false,
      created_at: '2026-01-01T00:00:00Z',
      ...fields,
    };
    this.sessions.push(s);
    return s;
  }

  /** Appends an event to the city log and pushes it to the open streams. */
  emit(type: string, subject: string | undefined, payload: Record<string, unknown>): void {
    const ev: StubEvent = {
      seq: this.events.length + 1,
      type,
      ts: new Date().toISOString(),
      actor: 'test',
      ...(subject === undefined ? {} : { subject }),
      payload,
    };
    this.events.push(ev);
    for (const res of this.#streams) this.#frame(res, ev);
  }

  /** The mutations received (everything but GETs). */
  get mutations(): Received[] {
    return this.received.filter((r) => r.method !== 'GET');
  }

  #find(id: string): StubSession | undefined {
    return this.sessions.find((s) => s.id === id || s.alias === id || s.session_name === id);
  }

  #frame(res: ServerResponse, ev: StubEvent): void {
    res.write(`id: ${ev.seq}\nevent: event\ndata: ${JSON.stringify(ev)}\n\n`);
  }

  #send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
    res.writeHead(status, { 'content-type': type });
    res.end(JSON.stringify(body));
  }

  #problem(res: ServerResponse, status: number, detail: string, errors?: unknown[]): void {
    this.#send(
      res,
      status,
      { title: 'Error', status, detail, ...(errors ? { errors } : {}) },
      'application/problem+json',
    );
  }

  #read(req: IncomingMessage, res: ServerResponse): void {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => this.#handle(req, res, text));
  }

  #handle(req: IncomingMessage, res: ServerResponse, text: string): void {
    const u = new URL(req.url ?? '/', 'http://stub');
    const method = req.method ?? 'GET';
    const header = req.headers['x-gc-request'];
    const body: unknown = text ? JSON.parse(text) : undefined;
    this.received.push({
      method,
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      header: typeof header === 'string' ? header : undefined,
      body,
    });
    if (u.pathname === '/health') return this.#send(res, 200, { status: 'ok' });
    if (u.pathname === '/v0/cities') {
      const items = [{ name: this.city, path: this.cityPath, running: true, status: 'running' }];
      return this.#send(res, 200, { items, total: 1 });
    }
    const prefix = `/v0/city/${encodeURIComponent(this.city)}`;
    if (!u.pathname.startsWith(`${prefix}/`)) {
      const m = /^\/v0\/city\/([^/]+)/.exec(u.pathname);
      return this.#problem(
        res,
        404,
        `not_found: city not found or not running: ${decodeURIComponent(m?.[1] ?? '')}`,
      );
    }
    const rest = u.pathname.slice(prefix.length);
    const problem = this.problems.get(`${method} ${rest}`);
    if (problem) return this.#problem(res, problem.status, problem.detail, problem.errors);
    if (method !== 'GET' && !header) {
      return this.#problem(res, 403, 'csrf: X-GC-Request header required on mutation endpoints');
    }
    if (rest === '/events/stream' && method === 'GET') return this.#stream(req, res, u.searchParams);
    if (rest === '/sessions')
      return method === 'GET' ? this.#list(res, u.searchParams) : this.#create(res, body);
    const m = /^\/session\/([^/]+)(?:\/([a-z-]+))?$/.exec(rest);
    if (!m) return this.#problem(res, 404, `not_found: no route for ${method} ${rest}`);
    const id = decodeURIComponent(m[1]!);
    const session = this.#find(id);
    if (!session) return this.#problem(res, 404, `not_found: session not found: ${id}`);
    const verb = m[2];
    if (verb === undefined && method === 'GET') {
      const peek = u.searchParams.get('peek') === 'true';
      return this.#send(res, 200, peek ? { ...session, last_output: 'echo: hi' } : session);
    }
    if (verb === undefined && method === 'PATCH') {
      const patch = body as { title?: string; alias?: string };
      if (patch.title !== undefined) session.title = patch.title;
      if (patch.alias !== undefined) {
        if (patch.alias === '') delete session.alias;
        else session.alias = patch.alias;
      }
      return this.#send(res, 200, session);
    }
    if (method !== 'POST') return this.#problem(res, 405, `method_not_allowed: ${method} ${rest}`);
    switch (verb) {
      case 'messages':
      case 'submit':
        return this.#message(res, session, verb, body as { message?: string; intent?: string });
      case 'rename':
        session.title = (body as { title: string }).title;
        return this.#send(res, 200, session);
      case 'stop':
      case 'kill':
      case 'wake':
        return this.#send(res, 200, { status: 'ok', id: session.id });
      case 'suspend':
        if (session.state === 'suspended') {
          return this.#problem(res, 409, `conflict: session ${session.id} is already suspended`);
        }
        session.state = 'suspended';
        return this.#send(res, 200, { status: 'ok' });
      case 'close':
        session.state = 'closed';
        return this.#send(res, 200, { status: 'ok' });
      default:
        return this.#problem(res, 404, `not_found: no route for ${method} ${rest}`);
    }
  }

  #list(res: ServerResponse, q: URLSearchParams): void {
    let items = this.sessions;
    if (q.get('state')) items = items.filter((s) => s.state === q.get('state'));
    if (q.get('template')) items = items.filter((s) => s.template === q.get('template'));
    const start = Number(q.get('cursor') ?? 0);
    const page = items.slice(start, start + this.pageSize);
    const next = start + this.pageSize < items.length ? String(start + this.pageSize) : undefined;
    this.#send(res, 200, { items: page, total: items.length, ...(next ? { next_cursor: next } : {}) });
  }

  /** 202 with the city head as event_cursor; the outcome lands on the city stream `workMs` later. */
  #accept(
    res: ServerResponse,
    operation: string,
    subject: string | undefined,
    result: () => Record<string, unknown>,
  ): void {
    this.#requests += 1;
    const requestId = `req-${String(this.#requests).padStart(8, '0')}`;
    const cursor = String(this.events.length);
    // Another request's outcome lands first: a waiter matches on request_id, not on the type alone.
    this.emit('request.failed', 'gc-other', {
      request_id: 'req-not-this-one',
      operation,
      error_code: 'other',
      error_message: 'not this request',
    });
    this.#send(res, 202, { status: 'accepted', request_id: requestId, event_cursor: cursor });
    const outcome = this.nextOutcome;
    setTimeout(() => {
      if (!outcome.ok) {
        this.emit('request.failed', subject, {
          request_id: requestId,
          operation,
          error_code: outcome.code,
          error_message: outcome.message,
        });
        return;
      }
      if (subject !== undefined) this.emit('session.woke', subject, {});
      this.emit(`request.result.${operation}`, subject, { request_id: requestId, ...result() });
    }, this.workMs);
  }

  #create(res: ServerResponse, body: unknown): void {
    const input = body as { name?: string; alias?: string; title?: string };
    if (!input.name) {
      return this.#problem(res, 422, 'invalid: validation failed', [
        { location: 'body.name', message: 'expected a name' },
      ]);
    }
    const session = this.add({
      template: input.name,
      title: input.title ?? input.name,
      ...(input.alias === undefined ? {} : { alias: input.alias }),
    });
    this.#accept(res, 'session.create', session.id, () => ({ session }));
  }

  #message(
    res: ServerResponse,
    session: StubSession,
    verb: string,
    body: { message?: string; intent?: string },
  ): void {
    if (!body.message?.trim()) {
      return this.#problem(res, 422, 'invalid: validation failed', [
        { location: 'body.message', message: 'expected string to match pattern \\S' },
      ]);
    }
    const operation = verb === 'submit' ? 'session.submit' : 'session.message';
    this.#accept(res, operation, session.id, () =>
      verb === 'submit'
        ? { session_id: session.id, intent: body.intent ?? 'default', queued: false }
        : { session_id: session.id },
    );
  }

  #stream(req: IncomingMessage, res: ServerResponse, q: URLSearchParams): void {
    const after = q.get('after_seq') ?? req.headers['last-event-id'];
    const from = typeof after === 'string' ? Number(after) : this.events.length;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const ev of this.events) if (ev.seq > from) this.#frame(res, ev);
    this.#streams.add(res);
    // Not req's 'close': it fires as soon as the (empty) request body has been read.
    res.on('close', () => this.#streams.delete(res));
  }
}
