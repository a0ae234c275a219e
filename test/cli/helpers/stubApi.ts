import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A stand-in for the supervisor's event API, for the wire-level cases a real supervisor never produces on
 * demand: an undecodable frame, a connection cut mid-stream, a Problem at stream setup, a list served
 * newest-first in small pages. It follows the contract (spec 4.2, event-contract §1–§3); it is not the
 * product, and the end-to-end tests run against the real supervisor.
 */
export interface StubEvent {
  seq: number;
  type: string;
  ts: string;
  actor: string;
  subject?: string;
  payload: unknown;
}

type Frame = { id?: string; event: string; data: string };
type Sub = { res: ServerResponse; city: string | undefined; cursor: Map<string, number> };

export class StubApi {
  readonly logs = new Map<string, StubEvent[]>([['__supervisor__', []]]);
  /** Page size of the city list, whatever `limit` the client asks (to force paging in tests). */
  pageSize = 3;
  /** Answers these paths with this Problem instead of serving them. */
  readonly problems = new Map<string, { status: number; detail: string }>();
  /** Every request as `METHOD path?query`, for assertions on what the CLI asked. */
  readonly requests: string[] = [];
  /** Count of stream connections opened, per path. */
  readonly connects = new Map<string, number>();
  /** Directory of each city as /v0/cities reports it (default `/cities/<name>`). */
  readonly cityPaths = new Map<string, string>();
  /**
   * A stream replays this many events from before the requested position too: a server whose replay
   * overlaps what the client already has, which the client must drop.
   */
  replayOverlap = 0;
  /** How the next POST /v0/city or …/unregister ends (`fail`: request.failed with this message). */
  nextOutcome: { ok: true } | { ok: false; code: string; message: string } = { ok: true };
  /** Startup phases each async create walks through, one every `phaseMs`, reported by /v0/cities. */
  phases = ['loading_config', 'starting_bead_store', 'starting_agents'];
  phaseMs = 150;
  readonly #completed = new Map<string, string[]>();
  /** The bodies of mutations received, with their X-GC-Request header. */
  readonly mutations: { path: string; header: string | undefined; body: unknown }[] = [];
  url = '';
  #server: Server;
  #subs = new Set<Sub>();
  #sockets = new Set<Socket>();

  constructor() {
    this.#server = createServer((req, res) => this.#handle(req, res));
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

  addCity(name: string): void {
    if (!this.logs.has(name)) this.logs.set(name, []);
  }

  /** Appends an event to a log (a city, or `__supervisor__`) and pushes it to open streams. */
  emit(log: string, draft: { type: string; subject?: string; payload?: unknown; ts?: string }): StubEvent {
    this.addCity(log);
    const events = this.logs.get(log)!;
    const ev: StubEvent = {
      seq: events.length + 1,
      type: draft.type,
      ts: draft.ts ?? new Date().toISOString(),
      actor: 'test',
      ...(draft.subject === undefined ? {} : { subject: draft.subject }),
      payload: draft.payload ?? {},
    };
    events.push(ev);
    for (const sub of this.#subs) this.#deliver(sub, log, ev);
    return ev;
  }

  /** Writes raw frame text to every open stream (e.g. undecodable data). */
  raw(text: string): void {
    for (const sub of this.#subs) sub.res.write(text);
  }

  /** Sends a heartbeat frame (no id) to every open stream. */
  heartbeat(): void {
    this.raw(`event: heartbeat\ndata: {"timestamp":"${new Date().toISOString().slice(0, 19)}Z"}\n\n`);
  }

  /** Ends every open stream cleanly (EOF), or cuts the sockets when `hard`. */
  disconnect(hard = false): void {
    for (const sub of this.#subs) {
      if (hard) sub.res.socket?.destroy();
      else sub.res.end();
    }
    this.#subs.clear();
  }

  get openStreams(): number {
    return this.#subs.size;
  }

  cursorText(cursor: Map<string, number>): string {
    return [...cursor.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}:${v}`)
      .join(',');
  }

  head(): Map<string, number> {
    return new Map([...this.logs].map(([k, v]) => [k, v.length]));
  }

  #tagged(log: string, ev: StubEvent): Record<string, unknown> {
    return { ...ev, city: log };
  }

  #deliver(sub: Sub, log: string, ev: StubEvent): void {
    if (sub.city !== undefined) {
      if (sub.city !== log) return;
      this.#write(sub.res, { id: String(ev.seq), event: 'event', data: JSON.stringify(ev) });
      return;
    }
    if (ev.seq <= (sub.cursor.get(log) ?? 0)) return;
    sub.cursor.set(log, ev.seq);
    this.#write(sub.res, {
      id: this.cursorText(sub.cursor),
      event: 'tagged_event',
      data: JSON.stringify(this.#tagged(log, ev)),
    });
  }

  #write(res: ServerResponse, f: Frame): void {
    res.write(`${f.id === undefined ? '' : `id: ${f.id}\n`}event: ${f.event}\ndata: ${f.data}\n\n`);
  }

  #problem(res: ServerResponse, status: number, detail: string): void {
    res.writeHead(status, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ title: 'Error', status, detail }));
  }

  #json(res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const u = new URL(req.url ?? '/', 'http://stub');
    this.requests.push(`${req.method} ${u.pathname}${u.search}`);
    const problem = this.problems.get(u.pathname);
    if (problem) return this.#problem(res, problem.status, problem.detail);
    const q = u.searchParams;
    if (u.pathname === '/health') return this.#json(res, { status: 'ok' });
    if (u.pathname === '/v0/cities') {
      const items = [...this.logs.keys()]
        .filter((k) => k !== '__supervisor__')
        .map((name) => ({
          name,
          path: this.cityPaths.get(name) ?? `/cities/${name}`,
          running: (this.#completed.get(name) ?? this.phases).length === this.phases.length,
          status: 'running',
          phases_completed: this.#completed.get(name) ?? this.phases,
        }));
      return this.#json(res, { items, total: items.length });
    }
    if (u.pathname === '/v0/events') {
      const after = q.get('after_cursor');
      const cursor = after ? this.#parse(after) : new Map<string, number>();
      let items = [...this.logs].flatMap(([log, evs]) =>
        evs.filter((e) => e.seq > (cursor.get(log) ?? 0)).map((e) => this.#tagged(log, e)),
      );
      if (q.get('type')) items = items.filter((e) => e.type === q.get('type'));
      // Served newest-first on purpose: the CLI must print oldest-first whatever the server does.
      items.sort((a, b) => String(b.ts).localeCompare(String(a.ts)));
      const limit = Number(q.get('limit') ?? 0);
      if (limit > 0) items = items.slice(0, limit);
      return this.#json(res, {
        items,
        total: items.length,
        event_cursor: this.cursorText(this.head()) || '0',
      });
    }
    if (u.pathname === '/v0/events/stream') {
      const after = q.get('after_cursor') ?? req.headers['last-event-id'];
      return this.#stream(req, res, undefined, typeof after === 'string' ? this.#parse(after) : this.head());
    }
    if (req.method === 'POST') return this.#mutation(req, res, u.pathname);
    const m = /^\/v0\/city\/([^/]+)\/events(\/stream)?$/.exec(u.pathname);
    if (m) {
      const city = decodeURIComponent(m[1]!);
      const log = this.logs.get(city);
      if (!log || city === '__supervisor__') {
        return this.#problem(res, 404, `not_found: city not found or not running: ${city}`);
      }
      if (m[2]) {
        const after = q.get('after_seq');
        return this.#stream(req, res, city, new Map([[city, after === null ? log.length : Number(after)]]));
      }
      let items = log.filter((e) => e.seq > Number(q.get('after_seq') ?? 0));
      if (q.get('type')) items = items.filter((e) => e.type === q.get('type'));
      items = [...items].reverse();
      const start = Number(q.get('cursor') ?? 0);
      const page = items.slice(start, start + this.pageSize);
      const next = start + this.pageSize < items.length ? String(start + this.pageSize) : undefined;
      return this.#json(
        res,
        { items: page, total: items.length, ...(next ? { next_cursor: next } : {}) },
        {
          'x-gc-index': String(log.length),
        },
      );
    }
    this.#problem(res, 404, `not_found: no route for ${req.method} ${u.pathname}`);
  }

  /** POST /v0/city and /v0/city/{name}/unregister: 202 at once, then phases, then the terminal event. */
  #mutation(req: IncomingMessage, res: ServerResponse, path: string): void {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      const header = req.headers['x-gc-request'];
      const body: unknown = text ? JSON.parse(text) : undefined;
      this.mutations.push({ path, header: typeof header === 'string' ? header : undefined, body });
      if (!header) return this.#problem(res, 403, 'csrf: X-GC-Request header required on mutation endpoints');
      const unregister = /^\/v0\/city\/([^/]+)\/unregister$/.exec(path);
      let name: string;
      if (unregister) {
        name = decodeURIComponent(unregister[1]!);
        if (!this.logs.has(name))
          return this.#problem(res, 404, `not_found: city not registered with supervisor: ${name}`);
      } else if (path === '/v0/city') {
        const given = (body as { dir?: unknown }).dir;
        const dir = typeof given === 'string' ? given : '';
        name = dir.split('/').filter(Boolean).at(-1) ?? '';
        if ((body as { provider?: unknown }).provider === 'nope') {
          return this.#problem(res, 422, 'invalid provider: unknown provider "nope"');
        }
        this.cityPaths.set(name, dir);
        this.#completed.set(name, []);
      } else {
        return this.#problem(res, 404, `not_found: no route for POST ${path}`);
      }
      const requestId = `req-${String(this.mutations.length).padStart(24, '0')}`;
      const event_cursor = this.cursorText(this.head()) || '0';
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ request_id: requestId, event_cursor }));
      const outcome = this.nextOutcome;
      const operation = unregister ? 'city.unregister' : 'city.create';
      void (async () => {
        if (!unregister) {
          this.emit(name, {
            type: 'city.created',
            subject: name,
            payload: { name, path: this.cityPaths.get(name) },
          });
          for (const phase of this.phases) {
            await new Promise((r) => setTimeout(r, this.phaseMs));
            this.#completed.set(name, [...(this.#completed.get(name) ?? []), phase]);
          }
        }
        await new Promise((r) => setTimeout(r, this.phaseMs));
        this.emit('__supervisor__', {
          type: outcome.ok ? `request.result.${operation}` : 'request.failed',
          subject: name,
          payload: outcome.ok
            ? { request_id: requestId, name, path: this.cityPaths.get(name) ?? '' }
            : { request_id: requestId, operation, error_code: outcome.code, error_message: outcome.message },
        });
      })();
    });
  }

  #parse(text: string): Map<string, number> {
    const out = new Map<string, number>();
    if (text === '0') return out;
    for (const part of text.split(',')) {
      const i = part.lastIndexOf(':');
      out.set(part.slice(0, i), Number(part.slice(i + 1)));
    }
    return out;
  }

  #stream(
    req: IncomingMessage,
    res: ServerResponse,
    city: string | undefined,
    cursor: Map<string, number>,
  ): void {
    const path = city === undefined ? '/v0/events/stream' : `/v0/city/${city}/events/stream`;
    this.connects.set(path, (this.connects.get(path) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const sub: Sub = { res, city, cursor: new Map(cursor) };
    // Replay what is after the cursor, then go live.
    for (const [log, events] of this.logs) {
      if (city !== undefined && log !== city) continue;
      const after = Math.max(0, (cursor.get(log) ?? 0) - this.replayOverlap);
      if (city === undefined) sub.cursor.set(log, after);
      for (const ev of events) if (ev.seq > after) this.#deliver(sub, log, ev);
    }
    this.#subs.add(sub);
    req.on('close', () => this.#subs.delete(sub));
  }
}
