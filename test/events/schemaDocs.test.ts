import t, { type Test } from 'tap';
import type { JournalDraft } from '../../actors/runtime/journal/journal.ts';
import { isRegisteredEventType, REGISTERED_EVENT_TYPES } from '../../schemas/eventCatalog.ts';
import { eventsServer } from '../helpers/eventsServer.ts';
import { docValidator } from '../helpers/schemaValidator.ts';
import { openSse } from '../helpers/sse.ts';

type Listed = { items: Array<{ type: string }> };

/** Events of every kind the supervisor writes, a custom one, and some that need normalising. */
const SAMPLES: JournalDraft[] = [
  { type: 'city.created', actor: 'gc', subject: 'alpha', payload: { name: 'alpha', path: '/c/alpha' } },
  {
    type: 'city.unregister_requested',
    actor: 'gc',
    subject: 'alpha',
    payload: { name: 'alpha', path: '/c/alpha' },
  },
  {
    type: 'bead.created',
    actor: 'ann',
    subject: 'gc-1',
    payload: { bead: { id: 'gc-1', issue_type: 'task', title: 't' } },
  },
  { type: 'bead.closed', actor: 'ann', subject: 'gc-1', payload: { bead: { id: 'gc-1', status: 'closed' } } },
  {
    type: 'mail.sent',
    actor: 'ann',
    subject: 'm-1',
    payload: { rig: 'r', message: { id: 'm-1', body: 'hi' } },
  },
  { type: 'mail.deleted', actor: 'ann', subject: 'm-1', payload: { rig: 'r' } },
  { type: 'session.woke', actor: 'gc', subject: 's-1' },
  { type: 'controller.started', actor: 'gc', payload: { unexpected: true } },
  { type: 'emergency.signaled', actor: 'gc', payload: { id: 'e1' } },
  { type: 'custom.anything', actor: 'me', message: 'hello', payload: [1, 'two'] },
  { type: 'custom.nothing', actor: 'me' },
];

const SUPERVISOR_SAMPLES: JournalDraft[] = [
  { type: 'supervisor.started', actor: 'gc', payload: { previous_exit: 'clean' } },
  {
    type: 'request.result.city.create',
    actor: 'api',
    subject: 'alpha',
    payload: { request_id: 'req-1', name: 'alpha', path: '/c/alpha' },
  },
  {
    type: 'request.result.city.unregister',
    actor: 'api',
    subject: 'alpha',
    payload: { request_id: 'req-2', name: 'alpha', path: '/c/alpha' },
  },
  {
    type: 'request.failed',
    actor: 'api',
    subject: 'beta',
    payload: {
      request_id: 'req-3',
      operation: 'city.create',
      error_code: 'start_failed',
      error_message: 'no',
    },
  },
];

async function served(t: Test) {
  const srv = await eventsServer(t, { heartbeatMs: 30 });
  const alpha = srv.addCity('alpha');
  for (const s of SAMPLES) await alpha.append(s);
  for (const s of SUPERVISOR_SAMPLES) await srv.cities.supervisorLog.append(s);
  const openapi = (await (await fetch(`${srv.base}/v0/schema/openapi.json`)).json()) as object;
  const events = (await (await fetch(`${srv.base}/v0/schema/events.json`)).json()) as object;
  return {
    srv,
    alpha,
    v: docValidator(openapi, events),
    openapi: openapi as { paths: Record<string, object> },
  };
}

t.test('list responses and their items validate against the OpenAPI document and events.json', async (t) => {
  const { srv, v } = await served(t);
  const city = (await (await fetch(`${srv.base}/v0/city/alpha/events?limit=1000`)).json()) as Listed;
  t.same(v.component('ListBodyWireEvent', city), []);
  t.equal(city.items.length, SAMPLES.length);
  for (const item of city.items) {
    t.same(v.component('TypedEventStreamEnvelope', item), [], `typed ${item.type}`);
    t.same(v.line(item, 'cityListLine'), [], `line ${item.type}`);
    t.same(v.line(item), []);
  }
  const sup = (await (await fetch(`${srv.base}/v0/events`)).json()) as Listed;
  t.same(v.component('SupervisorEventListOutputBody', sup), []);
  t.equal(sup.items.length, SAMPLES.length + SUPERVISOR_SAMPLES.length);
  for (const item of sup.items) {
    t.same(v.component('TypedTaggedEventStreamEnvelope', item), [], `tagged ${item.type}`);
    t.same(v.line(item, 'supervisorListLine'), [], `line ${item.type}`);
  }
  const emitted = await fetch(`${srv.base}/v0/city/alpha/events`, {
    method: 'POST',
    headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'x', actor: 'y' }),
  });
  t.same(v.component('EventEmitOutputBody', await emitted.json()), []);
});

t.test('stream frames of every kind validate: event, tagged_event and heartbeat', async (t) => {
  const { srv, v } = await served(t);
  const city = await openSse(`${srv.base}/v0/city/alpha/events/stream?after_seq=0`);
  let heartbeats = 0;
  for (let events = 0; events < SAMPLES.length || heartbeats === 0;) {
    const frame = await city.next();
    const data = JSON.parse(frame.data);
    if (frame.event === 'heartbeat') {
      heartbeats++;
      t.same(v.component('HeartbeatEvent', data), []);
      continue;
    }
    events++;
    t.equal(frame.event, 'event');
    t.same(v.component('TypedEventStreamEnvelope', data), [], `stream ${data.type}`);
    // The untyped envelope's payload is upstream's EventPayload, which describes the registered types only.
    if (isRegisteredEventType(data.type))
      t.same(v.component('EventStreamEnvelope', data), [], 'and the untyped envelope');
    t.same(v.line(data, 'cityStreamLine'), []);
  }
  city.close();
  const sup = await openSse(`${srv.base}/v0/events/stream?after_cursor=0`);
  for (let i = 0; i < SAMPLES.length + SUPERVISOR_SAMPLES.length; i++) {
    const frame = await sup.nextEvent();
    const data = JSON.parse(frame.data);
    t.equal(frame.event, 'tagged_event');
    t.same(v.component('TypedTaggedEventStreamEnvelope', data), [], `tagged stream ${data.type}`);
    if (isRegisteredEventType(data.type))
      t.same(v.component('TaggedEventStreamEnvelope', data), [], 'and the untyped envelope');
    t.same(v.line(data, 'supervisorStreamLine'), []);
  }
  sup.close();
});

t.test('the documents reject what is not a line: wrong payloads, extra fields, SSE frames', async (t) => {
  const { v } = await served(t);
  const base = { seq: 1, ts: '2026-01-01T00:00:00Z', actor: 'a' };
  t.not(v.component('TypedEventStreamEnvelope', { ...base, type: 'city.created', payload: {} }).length, 0);
  t.not(
    v.component('TypedEventStreamEnvelope', { ...base, type: 'city.created' }).length,
    0,
    'payload required',
  );
  t.same(v.component('TypedEventStreamEnvelope', { ...base, type: 'my.own', payload: { any: 1 } }), []);
  t.not(v.component('EventStreamEnvelope', { ...base, type: 'x', payload: {}, extra: 1 }).length, 0);
  t.not(v.component('EventStreamEnvelope', { ...base, type: 'x', payload: {}, city: 'c' }).length, 0);
  t.not(v.line({ id: '1', event: 'event', data: { ...base, type: 'x', payload: {} } }).length, 0);
  t.not(v.line({ timestamp: '2026-01-01T00:00:00Z' }).length, 0, 'a heartbeat is never a line');
});

t.test(
  'every registered type has its typed variant, and the Custom variant excludes exactly those',
  async (t) => {
    const { openapi } = await served(t);
    const schemas = (
      openapi as unknown as { components: { schemas: Record<string, Record<string, unknown>> } }
    ).components.schemas;
    for (const union of ['TypedEventStreamEnvelope', 'TypedTaggedEventStreamEnvelope']) {
      const mapping = (schemas[union]!.discriminator as { mapping: Record<string, string> }).mapping;
      t.same(Object.keys(mapping).sort(), [...REGISTERED_EVENT_TYPES].sort(), `${union} mapping`);
      const custom = schemas[`${union}Custom`]!.properties as { type: { not: { enum: string[] } } };
      t.same([...custom.type.not.enum].sort(), [...REGISTERED_EVENT_TYPES].sort(), `${union}Custom`);
    }
    for (const name of [
      'WireEvent',
      'WireTaggedEvent',
      'EventStreamEnvelope',
      'TaggedEventStreamEnvelope',
      'TypedEventStreamEnvelope',
      'TypedTaggedEventStreamEnvelope',
      'HeartbeatEvent',
      'ListBodyWireEvent',
      'SupervisorEventListOutputBody',
      'CityLifecyclePayload',
      'CityCreateSucceededPayload',
      'CityUnregisterSucceededPayload',
      'RequestFailedPayload',
    ]) {
      t.ok(schemas[name], `spec 2.5 names ${name}`);
    }
  },
);

t.test('every served route is in the OpenAPI document (the svc proxy excepted)', async (t) => {
  const { srv, openapi } = await served(t);
  const routes = servedRoutes(srv.app.printRoutes({ commonPrefix: false }));
  t.ok(routes.length > 10, `${routes.length} routes found`);
  for (const { method, path } of routes) {
    if (path.includes('*')) continue; // the raw workspace-service proxy, outside the typed API (spec 4.3)
    // The dashboard's pages are HTML for browsers, not API operations.
    if (path === '/dashboard' || path.startsWith('/dashboard/')) continue;
    // Routes with differently named parameters at one position print as `{base}|{dir}`: any name fits.
    const candidates = path
      .slice(1)
      .split('/')
      .reduce<string[]>(
        (acc, segment) => acc.flatMap((prefix) => segment.split('|').map((alt) => `${prefix}/${alt}`)),
        [''],
      );
    const op = candidates
      .map((c) => (openapi.paths[c] as Record<string, unknown> | undefined)?.[method.toLowerCase()])
      .find(Boolean);
    t.ok(op, `${method} ${path} is documented`);
  }
});

/**
 * The routes in Fastify's `printRoutes({ commonPrefix: false })` tree: each line is a path segment under
 * its parent line, with its methods in parentheses. HEAD (automatic) and OPTIONS (CORS) are left out.
 */
function servedRoutes(tree: string): Array<{ method: string; path: string }> {
  const out: Array<{ method: string; path: string }> = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^(.*?)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    const path = (stack[depth - 1] ?? '') + m[2]!;
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '').split(', ').filter(Boolean)) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      out.push({ method, path: path.replace(/:(\w+)/g, '{$1}') });
    }
  }
  return out;
}

t.test(
  'every operation documents its errors as ErrorModel, and errors as served validate against it',
  async (t) => {
    const { srv, v, openapi } = await served(t);
    const problemRef = { $ref: '#/components/schemas/ErrorModel' };
    let operations = 0;
    type Response = { headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown }> };
    for (const [path, item] of Object.entries(openapi.paths)) {
      for (const [method, op] of Object.entries(
        item as Record<string, { responses: Record<string, Response> }>,
      )) {
        operations++;
        const fallback = op.responses.default;
        if (!t.same(fallback?.content?.['application/problem+json']?.schema, problemRef, `${method} ${path}`))
          continue;
        for (const [status, response] of Object.entries(op.responses)) {
          if (!response.headers?.['X-GC-Request-Id'])
            t.fail(`${method} ${path} ${status} documents no X-GC-Request-Id header`);
        }
      }
    }
    t.ok(operations > 30, `${operations} operations checked`);

    const errors: Array<[string, RequestInit & { path: string }, number]> = [
      ['unknown city', { path: '/v0/city/nobody/events' }, 404],
      ['unknown route', { path: '/v0/nothing-here' }, 404],
      ['bad since', { path: '/v0/city/alpha/events?since=nope' }, 400],
      ['bad blocking query', { path: '/v0/city/alpha/events?index=x&wait=5d' }, 422],
      ['no X-GC-Request', { path: '/v0/city/alpha/events', method: 'POST', body: '{}' }, 403],
      [
        'bad body',
        {
          path: '/v0/city/alpha/events',
          method: 'POST',
          body: JSON.stringify({ type: 1, extra: true }),
          headers: { 'content-type': 'application/json', 'x-gc-request': '1' },
        },
        422,
      ],
    ];
    for (const [what, { path, ...init }, status] of errors) {
      const res = await fetch(`${srv.base}${path}`, init);
      const body = await res.json();
      t.equal(res.status, status, `${what}: ${status}`);
      t.match(res.headers.get('content-type'), /^application\/problem\+json/, `${what}: problem+json`);
      t.same(
        v.component('ErrorModel', body),
        [],
        `${what}: the body is an ErrorModel (${JSON.stringify(body)})`,
      );
    }
  },
);
