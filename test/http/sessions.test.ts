import type { CityServiceMap } from '../../actors/runtime/cityServices.ts';
import t, { type Test } from 'tap';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  UnavailableError,
  ValidationError,
} from '../../actors/runtime/errors.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { LiveCities } from '../../actors/supervisor/liveCities.ts';
import {
  SESSION_SERVICE,
  type Accepted,
  type MutationContext,
  type SessionApi,
  type SessionCreateInput,
  type SessionListQuery,
  type SessionPage,
  type SessionView,
} from '../../actors/sessions/sessionApi.ts';
import type { App } from '../../http/app.ts';
import type {
  AsyncAcceptedBody,
  ListBodySessionResponse,
  SessionCreateBody,
  SessionResponse,
} from '../../schemas/sessions.ts';
import { memoryApp } from '../helpers/app.ts';
import { docValidator, type DocValidator } from '../helpers/schemaValidator.ts';

/**
 * A route test of the session family's HTTP surface: validation, statuses, bodies, headers and the mapping
 * of the facade's errors, against a small in-test SessionApi that records every call. The session service
 * itself (and these routes over it, end to end) is tested with the service. Every body answered here is
 * validated against the component the served OpenAPI document names for it.
 */

// The wire schemas and the facade's hand-written types describe one shape: each must be assignable to the
// other (a field added on one side only fails typechecking here).
const viewIsResponse = (v: SessionView): SessionResponse => v;
const responseIsView = (v: SessionResponse): SessionView => v;
const acceptedIsBody = (v: Accepted): AsyncAcceptedBody => v;
const createBodyIsInput = ({ session_name: _, ...body }: SessionCreateBody): SessionCreateInput => body;
const pageIsList = (v: SessionPage): ListBodySessionResponse => v;
void [viewIsResponse, responseIsView, acceptedIsBody, createBodyIsInput, pageIsList];

const CITY = 'alpha';
const BASE = `/v0/city/${CITY}`;

const SESSION: SessionView = {
  id: 'al-1',
  template: 'worker',
  title: 'Worker one',
  provider: 'mock',
  session_name: 'alpha-worker-1',
  state: 'active',
  created_at: '2026-01-02T03:04:05Z',
  running: true,
  attached: false,
  alias: 'w1',
  metadata: { 'gc.template': 'worker' },
  context_pct: 12,
  submission_capabilities: { supports_follow_up: true, supports_interrupt_now: true },
};

interface Call {
  method: keyof SessionApi;
  args: unknown[];
}

/** A SessionApi that records its calls and answers canned values, or throws `fail` when it is set. */
class RecordingSessions implements SessionApi {
  index = 42;
  calls: Call[] = [];
  fail: Error | undefined;
  page: SessionPage = { items: [SESSION], total: 3, next_cursor: 'c2' };
  #requests = 0;

  #record(method: keyof SessionApi, ...args: unknown[]): void {
    this.calls.push({ method, args });
    if (this.fail) throw this.fail;
  }
  #accepted(): Accepted {
    this.index += 1;
    return {
      status: 'accepted',
      request_id: `req-${++this.#requests}`,
      event_cursor: String(this.index - 1),
    };
  }

  async list(query: SessionListQuery): Promise<SessionPage> {
    this.#record('list', query);
    return this.page;
  }
  async get(id: string, options?: { peek?: boolean; peekLines?: number }): Promise<SessionView> {
    this.#record('get', id, options);
    return options?.peek ? { ...SESSION, last_output: 'echo: hi' } : SESSION;
  }
  async create(input: SessionCreateInput, ctx: MutationContext): Promise<Accepted> {
    this.#record('create', input, ctx);
    return this.#accepted();
  }
  async message(id: string, text: string, ctx: MutationContext): Promise<Accepted> {
    this.#record('message', id, text, ctx);
    return this.#accepted();
  }
  async submit(id: string, text: string, intent: string, ctx: MutationContext): Promise<Accepted> {
    this.#record('submit', id, text, intent, ctx);
    return this.#accepted();
  }
  async patch(id: string, patch: { title?: string; alias?: string }, ctx: MutationContext) {
    this.#record('patch', id, patch, ctx);
    this.index += 1;
    return { ...SESSION, ...patch };
  }
  async rename(id: string, title: string, ctx: MutationContext): Promise<SessionView> {
    this.#record('rename', id, title, ctx);
    this.index += 1;
    return { ...SESSION, title };
  }
  async setPermissionMode(id: string, mode: string, ctx: MutationContext): Promise<SessionView> {
    this.#record('setPermissionMode', id, mode, ctx);
    return { ...SESSION, options: { permission_mode: mode } };
  }
  async stop(id: string, ctx: MutationContext): Promise<string> {
    this.#record('stop', id, ctx);
    return SESSION.id;
  }
  async kill(id: string, ctx: MutationContext): Promise<string> {
    this.#record('kill', id, ctx);
    return SESSION.id;
  }
  async suspend(id: string, ctx: MutationContext): Promise<void> {
    this.#record('suspend', id, ctx);
  }
  async wake(id: string, ctx: MutationContext): Promise<string> {
    this.#record('wake', id, ctx);
    return SESSION.id;
  }
  async close(id: string, options: { delete?: boolean }, ctx: MutationContext): Promise<void> {
    this.#record('close', id, options, ctx);
  }
}

interface Harness {
  app: App;
  sessions: RecordingSessions;
  cities: LiveCities;
  v: DocValidator;
  /** Sends a request as a client would (JSON body, X-GC-Request on mutations unless `headers` says). */
  send(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
}

interface Reply {
  status: number;
  headers: Record<string, unknown>;
  json: Record<string, unknown> & { detail?: string; errors?: Array<{ location: string; value?: unknown }> };
  raw: string;
}

async function harness(t: Test, services?: CityServiceMap): Promise<Harness> {
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const sessions = new RecordingSessions();
  cities.set({
    name: CITY,
    path: `/cities/${CITY}`,
    journal: new MemoryJournal(CITY),
    running: true,
    services: services ?? { [SESSION_SERVICE]: sessions },
  });
  const { app } = await memoryApp({ cities });
  t.teardown(() => app.close());
  const openapi = (await app.inject({ url: '/openapi.json' })).json<object>();
  const events = (await app.inject({ url: '/v0/schema/events.json' })).json<object>();
  const send = async (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = method === 'GET' ? {} : { 'x-gc-request': 'test' },
  ): Promise<Reply> => {
    const res = await app.inject({
      method: method as 'GET',
      url: url.startsWith('/') ? url : `${BASE}/${url}`,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: res.statusCode, headers: res.headers, json: res.body ? res.json() : {}, raw: res.body };
  };
  return { app, sessions, cities, v: docValidator(openapi, events), send };
}

/** Asserts `reply` is `status` with a body valid against the component `name`. */
function valid(t: Test, h: Harness, reply: Reply, status: number, name: string): void {
  t.equal(reply.status, status, `${status}: ${reply.raw}`);
  t.same(h.v.component(name, reply.json), [], `the body is a valid ${name}`);
}

function indexed(t: Test, reply: Reply, index: number): void {
  t.equal(reply.headers['x-gc-index'], String(index), 'X-GC-Index is the service index');
  t.equal(reply.headers['x-gc-cache-age-s'], '0', 'X-GC-Cache-Age-S is 0');
}

const api = { actor: 'api' };

t.test('GET /sessions answers the page with its filters, and the service index', async (t) => {
  const h = await harness(t);
  const res = await h.send('GET', 'sessions?state=active&template=worker&peek=true&cursor=c1&limit=10');
  valid(t, h, res, 200, 'ListBodySessionResponse');
  t.same(res.json, { items: [SESSION], total: 3, next_cursor: 'c2' });
  indexed(t, res, 42);
  t.same(h.sessions.calls, [
    {
      method: 'list',
      args: [{ state: 'active', template: 'worker', peek: true, cursor: 'c1', limit: 10 }],
    },
  ]);

  h.sessions.calls = [];
  h.sessions.page = { items: [], total: 0 };
  const blank = await h.send('GET', 'sessions?state=&template=&cursor=&limit=');
  valid(t, h, blank, 200, 'ListBodySessionResponse');
  t.same(blank.json, { items: [], total: 0 });
  t.same(h.sessions.calls[0]?.args, [{}], 'blank values are absent, as Go reads them');
});

t.test('GET /session/{id} passes peek and peek_lines', async (t) => {
  const h = await harness(t);
  const plain = await h.send('GET', 'session/w1');
  valid(t, h, plain, 200, 'SessionResponse');
  t.same(plain.json, SESSION);
  indexed(t, plain, 42);
  const peek = await h.send('GET', 'session/al-1?peek=true&peek_lines=20');
  valid(t, h, peek, 200, 'SessionResponse');
  t.equal(peek.json.last_output, 'echo: hi');
  t.same(h.sessions.calls, [
    { method: 'get', args: ['w1', {}] },
    { method: 'get', args: ['al-1', { peek: true, peekLines: 20 }] },
  ]);
  const encoded = await h.send('GET', `session/${encodeURIComponent('a b/c')}`);
  t.equal(encoded.status, 200);
  t.equal(h.sessions.calls[2]?.args[0], 'a b/c', 'the id reaches the service decoded');
});

t.test('POST /sessions answers 202 with the AsyncAcceptedBody and forwards Idempotency-Key', async (t) => {
  const h = await harness(t);
  const body = { kind: 'agent', name: 'worker', alias: 'w1', message: 'hello', options: { model: 'x' } };
  const res = await h.send('POST', 'sessions', body, { 'x-gc-request': 'test', 'idempotency-key': 'k-1' });
  valid(t, h, res, 202, 'AsyncAcceptedBody');
  t.same(res.json, { status: 'accepted', request_id: 'req-1', event_cursor: '42' });
  t.same(h.sessions.calls, [{ method: 'create', args: [body, { actor: 'api', idempotencyKey: 'k-1' }] }]);

  const unkeyed = await h.send('POST', 'sessions', {}, { 'x-gc-request': 'test', 'idempotency-key': ' ' });
  valid(t, h, unkeyed, 202, 'AsyncAcceptedBody');
  t.same(h.sessions.calls[1], { method: 'create', args: [{}, api] }, 'a blank key is no key');
});

t.test('messages and submit answer 202 and pass the text, the intent and the key', async (t) => {
  const h = await harness(t);
  const keyed = { 'x-gc-request': 'test', 'idempotency-key': 'm-1' };
  const msg = await h.send('POST', 'session/w1/messages', { message: 'hello' }, keyed);
  valid(t, h, msg, 202, 'AsyncAcceptedBody');
  t.equal(msg.json.status, 'accepted');
  const plain = await h.send('POST', 'session/w1/submit', { message: 'go on' });
  valid(t, h, plain, 202, 'AsyncAcceptedBody');
  const intents = ['default', 'follow_up', 'interrupt_now'];
  for (const intent of intents) {
    valid(
      t,
      h,
      await h.send('POST', 'session/w1/submit', { message: 'now', intent }, keyed),
      202,
      'AsyncAcceptedBody',
    );
  }
  t.same(h.sessions.calls, [
    { method: 'message', args: ['w1', 'hello', { actor: 'api', idempotencyKey: 'm-1' }] },
    { method: 'submit', args: ['w1', 'go on', 'default', api] },
    ...intents.map((intent) => ({
      method: 'submit',
      args: ['w1', 'now', intent, { actor: 'api', idempotencyKey: 'm-1' }],
    })),
  ]);
});

t.test('patch, rename and permission-mode answer the session after the change', async (t) => {
  const h = await harness(t);
  const patched = await h.send('PATCH', 'session/w1', { title: 'New', alias: '' });
  valid(t, h, patched, 200, 'SessionResponse');
  t.match(patched.json, { title: 'New', alias: '' });
  indexed(t, patched, 43);
  const renamed = await h.send('POST', 'session/w1/rename', { title: 'Renamed' });
  valid(t, h, renamed, 200, 'SessionResponse');
  t.equal(renamed.json.title, 'Renamed');
  indexed(t, renamed, 44);
  const mode = await h.send('POST', 'session/w1/permission-mode', { permission_mode: 'plan' });
  valid(t, h, mode, 200, 'SessionResponse');
  t.same(mode.json.options, { permission_mode: 'plan' });
  indexed(t, mode, 44);
  t.same(h.sessions.calls, [
    { method: 'patch', args: ['w1', { title: 'New', alias: '' }, api] },
    { method: 'rename', args: ['w1', 'Renamed', api] },
    { method: 'setPermissionMode', args: ['w1', 'plan', api] },
  ]);
});

t.test('stop, kill, wake, suspend and close answer upstream OK bodies', async (t) => {
  const h = await harness(t);
  for (const verb of ['stop', 'kill', 'wake'] as const) {
    const res = await h.send('POST', `session/w1/${verb}`);
    valid(t, h, res, 200, 'OKWithIDResponseBody');
    t.same(res.json, { status: 'ok', id: 'al-1' }, verb);
  }
  const suspended = await h.send('POST', 'session/w1/suspend');
  t.same([suspended.status, suspended.json], [200, { status: 'ok' }], 'suspend');
  const closed = await h.send('POST', 'session/w1/close');
  t.same([closed.status, closed.json], [200, { status: 'ok' }], 'close');
  const deleted = await h.send('POST', 'session/w1/close?delete=true');
  t.same([deleted.status, deleted.json], [200, { status: 'ok' }], 'close and delete');
  t.same(h.sessions.calls, [
    { method: 'stop', args: ['w1', api] },
    { method: 'kill', args: ['w1', api] },
    { method: 'wake', args: ['w1', api] },
    { method: 'suspend', args: ['w1', api] },
    { method: 'close', args: ['w1', { delete: false }, api] },
    { method: 'close', args: ['w1', { delete: true }, api] },
  ]);
});

t.test('bodyless session verbs ignore the content type of an empty body', async (t) => {
  const h = await harness(t);
  for (const verb of ['stop', 'kill', 'wake', 'suspend', 'close']) {
    const res = await h.app.inject({
      method: 'POST',
      url: `${BASE}/session/w1/${verb}`,
      headers: { 'x-gc-request': 'test', 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    t.equal(res.statusCode, 200, `${verb}: ${res.body}`);
  }
  t.equal(h.sessions.calls.length, 5);
});

/** [what, method, path, body, the `errors[]` locations expected] */
const INVALID: Array<[string, string, string, unknown, string[]]> = [
  ['empty message', 'POST', 'session/w1/messages', { message: '' }, ['body.message']],
  ['blank message', 'POST', 'session/w1/messages', { message: ' \n\t' }, ['body.message']],
  ['no message', 'POST', 'session/w1/messages', {}, ['body.message']],
  ['a number as message', 'POST', 'session/w1/messages', { message: 5 }, ['body.message']],
  ['empty submit', 'POST', 'session/w1/submit', { message: '' }, ['body.message']],
  ['bad intent', 'POST', 'session/w1/submit', { message: 'x', intent: 'later' }, ['body.intent']],
  ['empty intent', 'POST', 'session/w1/submit', { message: 'x', intent: '' }, ['body.intent']],
  ['unknown submit field', 'POST', 'session/w1/submit', { message: 'x', extra: 1 }, ['body.extra']],
  ['unknown create field', 'POST', 'sessions', { name: 'worker', agent: 'x' }, ['body.agent']],
  ['options not strings', 'POST', 'sessions', { options: { n: 1 } }, ['body.options.n']],
  ['async not a boolean', 'POST', 'sessions', { async: 'true' }, ['body.async']],
  ['deprecated session_name', 'POST', 'sessions', { session_name: 's' }, ['body.session_name']],
  ['empty patch', 'PATCH', 'session/w1', {}, ['body']],
  ['empty title in a patch', 'PATCH', 'session/w1', { title: '' }, ['body.title']],
  ['rename without title', 'POST', 'session/w1/rename', {}, ['body.title']],
  ['empty rename', 'POST', 'session/w1/rename', { title: '' }, ['body.title']],
  [
    'blank permission mode',
    'POST',
    'session/w1/permission-mode',
    { permission_mode: ' ' },
    ['body.permission_mode'],
  ],
  ['a body that is not an object', 'POST', 'session/w1/messages', ['hi'], ['body']],
];

t.test('invalid bodies are 422 problems naming the field, and never reach the service', async (t) => {
  const h = await harness(t);
  for (const [what, method, path, body, locations] of INVALID) {
    const res = await h.send(method, path, body);
    t.equal(res.status, 422, `${what}: ${res.raw}`);
    t.equal(res.json.detail, 'validation failed', what);
    // An empty message fails both `minLength` and `pattern`: two entries, one field.
    t.same(
      [...new Set((res.json.errors ?? []).map((e) => e.location))],
      locations,
      `${what}: errors[] names ${locations.join(', ')}`,
    );
    t.same(h.v.component('ErrorModel', res.json), [], `${what}: a valid ErrorModel`);
    t.match(res.headers['content-type'], /^application\/problem\+json/);
  }
  t.same(h.sessions.calls, [], 'the service was never called');
});

t.test('bad query values are 422 problems naming the parameter, and never reach the service', async (t) => {
  const h = await harness(t);
  const cases: Array<[string, string]> = [
    ['sessions?limit=abc', 'query.limit'],
    ['sessions?limit=-1', 'query.limit'],
    ['sessions?limit=1e3', 'query.limit'],
    ['sessions?limit=0x10', 'query.limit'],
    ['sessions?limit=99999999999999999999', 'query.limit'],
    ['sessions?peek=maybe', 'query.peek'],
    ['sessions?status=active', 'query.status'],
    ['session/w1?peek_lines=10001', 'query.peek_lines'],
    ['session/w1?peek_lines=1.5', 'query.peek_lines'],
    ['session/w1?peek_lines=+5', 'query.peek_lines'],
  ];
  for (const [url, location] of cases) {
    const res = await h.send('GET', url);
    t.equal(res.status, 422, `${url}: ${res.raw}`);
    t.same(
      (res.json.errors ?? []).map((e) => e.location),
      [location],
      `${url}: ${location}`,
    );
  }
  const close = await h.send('POST', 'session/w1/close?delete=yes');
  t.equal(close.status, 422, close.raw);
  t.same(
    close.json.errors?.map((e) => e.location),
    ['query.delete'],
  );
  t.same(h.sessions.calls, [], 'the service was never called');
});

t.test("the service's errors are the catalogue's problems", async (t) => {
  const h = await harness(t);
  const cases: Array<[Error, number, string]> = [
    [new NotFoundError('session "ghost" not found'), 404, 'not_found: session "ghost" not found'],
    [new ConflictError('session al-1 is closed'), 409, 'conflict: session al-1 is closed'],
    [
      new ValidationError('validation failed', null, {
        errors: [{ location: 'body.name', message: 'unknown agent template', value: 'nobody' }],
      }),
      422,
      'validation failed',
    ],
    [
      new UnavailableError('runtime tmux is not available'),
      503,
      'unavailable: runtime tmux is not available',
    ],
    [
      new BadRequestError('cursor is not a valid pagination token; re-fetch the first page'),
      400,
      'invalid: cursor is not a valid pagination token; re-fetch the first page',
    ],
  ];
  const requests: Array<[string, string, unknown?]> = [
    ['GET', 'sessions'],
    ['POST', 'sessions', { name: 'nobody' }],
    ['GET', 'session/ghost'],
    ['PATCH', 'session/ghost', { title: 'x' }],
    ['POST', 'session/ghost/messages', { message: 'hi' }],
    ['POST', 'session/ghost/submit', { message: 'hi', intent: 'follow_up' }],
    ['POST', 'session/ghost/rename', { title: 'x' }],
    ['POST', 'session/ghost/permission-mode', { permission_mode: 'plan' }],
    ['POST', 'session/ghost/stop'],
    ['POST', 'session/ghost/kill'],
    ['POST', 'session/ghost/wake'],
    ['POST', 'session/ghost/suspend'],
    ['POST', 'session/ghost/close'],
  ];
  for (const [error, status, detail] of cases) {
    h.sessions.fail = error;
    for (const [method, path, body] of requests) {
      const res = await h.send(method, path, body);
      t.equal(res.status, status, `${error.name} on ${method} ${path}: ${res.raw}`);
      t.equal(res.json.detail, detail);
      t.same(h.v.component('ErrorModel', res.json), [], 'a valid ErrorModel');
    }
  }
  h.sessions.fail = cases[2]![0];
  const refused = await h.send('POST', 'sessions', { name: 'nobody' });
  t.same(refused.json.errors, [
    { location: 'body.name', message: 'unknown agent template', value: 'nobody' },
  ]);
  t.equal(h.sessions.calls.length, cases.length * requests.length + 1, 'each reached the service once');
});

t.test('a city that is not running is a 404; one without its session service a 503', async (t) => {
  const h = await harness(t);
  const gone = await h.send('GET', '/v0/city/nobody/sessions');
  t.equal(gone.status, 404);
  t.equal(gone.json.detail, 'not_found: city not found or not running: nobody');
  const message = await h.send('POST', '/v0/city/nobody/session/w1/messages', { message: 'hi' });
  t.same([message.status, message.json.detail], [404, 'not_found: city not found or not running: nobody']);

  h.cities.update(CITY, { running: false });
  const starting = await h.send('POST', 'session/w1/stop');
  t.same([starting.status, starting.json.detail], [404, `not_found: city not found or not running: ${CITY}`]);

  const bare = await harness(t, {});
  for (const [method, path, body] of [
    ['GET', 'sessions'],
    ['GET', 'session/w1'],
    ['POST', 'sessions', {}],
    ['POST', 'session/w1/submit', { message: 'hi' }],
    ['POST', 'session/w1/close'],
  ] as const) {
    const res = await bare.send(method, path, body);
    t.equal(res.status, 503, `${method} ${path}`);
    t.equal(res.json.detail, `unavailable: session service is not started for city ${CITY}`);
  }
  t.same(h.sessions.calls, []);
});

t.test('a session mutation without X-GC-Request is refused before the service', async (t) => {
  const h = await harness(t);
  const res = await h.send('POST', 'session/w1/messages', { message: 'hi' }, {});
  t.equal(res.status, 403);
  t.equal(res.json.detail, 'csrf: X-GC-Request header required on mutation endpoints');
  t.same(h.sessions.calls, []);
});

t.test("the document lists upstream's session operations with their shapes", async (t) => {
  const h = await harness(t);
  type Op = {
    operationId: string;
    requestBody?: { content: Record<string, { schema: { title?: string } }> };
    responses: Record<string, { content?: Record<string, { schema: { $ref?: string; title?: string } }> }>;
  };
  const doc = (await h.app.inject({ url: '/openapi.json' })).json<{
    paths: Record<string, Record<string, Op>>;
  }>();
  const expected: Array<[string, string, string, string, string, string?]> = [
    ['get', '/sessions', 'get-v0-city-by-city-name-sessions', '200', 'ListBodySessionResponse'],
    ['post', '/sessions', 'create-session', '202', 'AsyncAcceptedBody', 'SessionCreateBody'],
    ['get', '/session/{id}', 'get-v0-city-by-city-name-session-by-id', '200', 'SessionResponse'],
    [
      'patch',
      '/session/{id}',
      'patch-v0-city-by-city-name-session-by-id',
      '200',
      'SessionResponse',
      'SessionPatchBody',
    ],
    [
      'post',
      '/session/{id}/messages',
      'send-session-message',
      '202',
      'AsyncAcceptedBody',
      'SessionMessageInputBody',
    ],
    ['post', '/session/{id}/submit', 'submit-session', '202', 'AsyncAcceptedBody', 'SessionSubmitInputBody'],
    [
      'post',
      '/session/{id}/stop',
      'post-v0-city-by-city-name-session-by-id-stop',
      '200',
      'OKWithIDResponseBody',
    ],
    [
      'post',
      '/session/{id}/kill',
      'post-v0-city-by-city-name-session-by-id-kill',
      '200',
      'OKWithIDResponseBody',
    ],
    [
      'post',
      '/session/{id}/wake',
      'post-v0-city-by-city-name-session-by-id-wake',
      '200',
      'OKWithIDResponseBody',
    ],
    ['post', '/session/{id}/suspend', 'post-v0-city-by-city-name-session-by-id-suspend', '200', ''],
    ['post', '/session/{id}/close', 'post-v0-city-by-city-name-session-by-id-close', '200', ''],
    [
      'post',
      '/session/{id}/rename',
      'post-v0-city-by-city-name-session-by-id-rename',
      '200',
      'SessionResponse',
      'SessionRenameInputBody',
    ],
    [
      'post',
      '/session/{id}/permission-mode',
      'post-v0-city-by-city-name-session-by-id-permission-mode',
      '200',
      'SessionResponse',
      'SessionPermissionModeBody',
    ],
  ];
  for (const [method, path, operationId, status, response, body] of expected) {
    const op = doc.paths[`/v0/city/{cityName}${path}`]?.[method];
    t.equal(op?.operationId, operationId, `${method} ${path}`);
    const schema = op?.responses[status]?.content?.['application/json']?.schema;
    t.ok(schema, `${operationId} answers ${status}`);
    if (response) t.equal(schema?.$ref, `#/components/schemas/${response}`, `${operationId}: ${response}`);
    if (body)
      t.equal(op?.requestBody?.content['application/json']?.schema.title, body, `${operationId}: ${body}`);
  }
});
