import type { CityServiceMap } from '../../actors/runtime/cityServices.ts';
import t, { type Test } from 'tap';
import {
  AGENT_SERVICE,
  type AgentApi,
  type AgentCreateInput,
  type AgentOutput,
  type AgentPage,
  type AgentUpdateInput,
  type AgentView,
  type OutputTurn as FacadeTurn,
} from '../../actors/agents/agentApi.ts';
import type { SupervisorConfig } from '../../actors/supervisor/supervisorConfig.ts';
import {
  ConflictError,
  GatewayTimeoutError,
  NotFoundError,
  UnavailableError,
  ValidationError,
} from '../../actors/runtime/errors.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { LiveCities } from '../../actors/supervisor/liveCities.ts';
import type { App } from '../../http/app.ts';
import type { AppDeps } from '../../http/deps.ts';
import { setAgentOutputPollMs } from '../../http/routes/agentsStream.ts';
import type {
  AgentCreateInputBody,
  AgentCreatedOutputBody,
  AgentOutputResponse,
  AgentResponse,
  AgentUpdateInputBody,
  AgentUpdateQualifiedInputBody,
  ListBodyAgentResponse,
  OutputTurn,
} from '../../schemas/agents.ts';
import { memoryApp } from '../helpers/app.ts';
import { docValidator, type DocValidator } from '../helpers/schemaValidator.ts';
import { conversation, MAYOR, RecordingAgents, turn, WORKER } from '../helpers/recordingAgents.ts';
import { openSse } from '../helpers/sse.ts';

/**
 * A route test of the agent family's HTTP surface: validation, statuses, bodies, headers, the mapping of the
 * facade's errors, both path forms (`{base}` and `{dir}/{base}`) and the output stream over a real socket,
 * against a small in-test AgentApi that records every call. Every body answered here is validated against
 * the component the served OpenAPI document names for it.
 */

// The wire schemas and the facade's hand-written types describe one shape: each must be assignable to the
// other (a field added on one side only fails typechecking here).
const viewIsResponse = (v: AgentView): AgentResponse => v;
const responseIsView = (v: AgentResponse): AgentView => v;
const pageIsList = (v: AgentPage): ListBodyAgentResponse => v;
const listIsPage = (v: ListBodyAgentResponse): AgentPage => ({ ...v, items: v.items ?? [] });
const createBodyIsInput = (v: AgentCreateInputBody): AgentCreateInput => v;
const inputIsCreateBody = (v: AgentCreateInput): AgentCreateInputBody => v;
const createdIsBody = (v: Awaited<ReturnType<AgentApi['create']>>): AgentCreatedOutputBody => v;
const updateIsInput = (v: AgentUpdateInputBody): AgentUpdateInput => v;
const inputIsUpdate = (v: AgentUpdateInput): AgentUpdateInputBody => v;
const qualifiedIsInput = (v: AgentUpdateQualifiedInputBody): AgentUpdateInput => v;
const inputIsQualified = (v: AgentUpdateInput): AgentUpdateQualifiedInputBody => v;
const outputIsResponse = (v: AgentOutput): AgentOutputResponse => v;
const responseIsOutput = (v: AgentOutputResponse): AgentOutput => ({ ...v, turns: v.turns ?? [] });
const turnIsWire = (v: FacadeTurn): OutputTurn => v;
const wireIsTurn = (v: OutputTurn): FacadeTurn => v;
void [viewIsResponse, responseIsView, pageIsList, listIsPage, createBodyIsInput, inputIsCreateBody];
void [createdIsBody, updateIsInput, inputIsUpdate, qualifiedIsInput, inputIsQualified];
void [outputIsResponse, responseIsOutput, turnIsWire, wireIsTurn];

const CITY = 'alpha';
const BASE = `/v0/city/${CITY}`;

// memoryApp merges a partial config over the defaults; its parameter type asks for a whole one.
const heartbeat = (heartbeatMs: number) => ({ heartbeatMs }) as SupervisorConfig;

interface Reply {
  status: number;
  headers: Record<string, unknown>;
  json: Record<string, unknown> & { detail?: string; errors?: Array<{ location: string; value?: unknown }> };
  raw: string;
}

let validator: Promise<DocValidator> | undefined;

/** The validator of the served documents, built once: every app of this file serves the same ones. */
function validatorOf(app: App): Promise<DocValidator> {
  validator ??= (async () => {
    const openapi = (await app.inject({ url: '/openapi.json' })).json<object>();
    const events = (await app.inject({ url: '/v0/schema/events.json' })).json<object>();
    return docValidator(openapi, events);
  })();
  return validator;
}

interface Harness {
  app: App;
  deps: AppDeps;
  agents: RecordingAgents;
  cities: LiveCities;
  v: DocValidator;
  /** Sends a request as a client would (JSON body, X-GC-Request on mutations unless `headers` says). */
  send(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
}

async function harness(t: Test, services?: CityServiceMap): Promise<Harness> {
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const agents = new RecordingAgents();
  cities.set({
    name: CITY,
    path: `/cities/${CITY}`,
    journal: new MemoryJournal(CITY),
    running: true,
    services: services ?? { [AGENT_SERVICE]: agents },
  });
  const { app, deps } = await memoryApp({ cities, config: heartbeat(60_000) });
  t.teardown(() => app.close());
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
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: res.statusCode, headers: res.headers, json: res.body ? res.json() : {}, raw: res.body };
  };
  return { app, deps, agents, cities, v: await validatorOf(app), send };
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

/** The two path forms and the qualified name each addresses. */
const FORMS = [
  ['agent/mayor', 'mayor'],
  ['agent/rig1/worker', 'rig1/worker'],
] as const;

t.test('GET /agents answers every agent with its filters, and the service index', async (t) => {
  const h = await harness(t);
  const all = await h.send('GET', 'agents');
  valid(t, h, all, 200, 'ListBodyAgentResponse');
  t.same(all.json, { items: [MAYOR, WORKER], total: 2 });
  indexed(t, all, 7);
  const filtered = await h.send('GET', 'agents?pool=worker&rig=rig1&running=false&peek=true');
  valid(t, h, filtered, 200, 'ListBodyAgentResponse');
  await h.send('GET', 'agents?running=true');
  const blank = await h.send('GET', 'agents?pool=&rig=&running=&peek=&index=&wait=');
  t.equal(blank.status, 200, blank.raw);
  t.same(
    h.agents.calls.map((c) => c.args),
    [[{}], [{ pool: 'worker', rig: 'rig1', running: false, peek: true }], [{ running: true }], [{}]],
    'filters reach the service typed; blank values are absent, as Go reads them',
  );
});

t.test('GET /agents with index blocks until the service passes it, or wait elapses', async (t) => {
  const h = await harness(t);
  const past = await h.send('GET', 'agents?index=3');
  t.equal(past.status, 200, 'an index already passed answers at once');
  const held = h.send('GET', 'agents?index=7&wait=30s');
  // The request is held inside waitForIndex: the recorded call is the sign it got there.
  while (!h.agents.calls.some((c) => c.method === 'waitForIndex' && c.args[0] === 7)) {
    await new Promise((r) => setImmediate(r));
  }
  t.notOk(
    h.agents.calls.some((c) => c.method === 'list' && h.agents.index > 7),
    'not answered yet',
  );
  h.agents.bump();
  const answered = await held;
  valid(t, h, answered, 200, 'ListBodyAgentResponse');
  indexed(t, answered, 8);
  const timedOut = await h.send('GET', 'agents?index=8&wait=5ms');
  t.equal(timedOut.status, 200, 'a wait that elapses answers the current list');
  indexed(t, timedOut, 8);
  t.same(
    h.agents.calls.filter((c) => c.method === 'waitForIndex').map((c) => c.args),
    [
      [3, 30_000],
      [7, 30_000],
      [8, 5],
    ],
  );
  const capped = await h.send('GET', 'agents?index=1&wait=10m');
  t.equal(capped.status, 200);
  t.same(h.agents.calls.at(-2)?.args, [1, 120_000], 'wait is capped at 2m');
});

t.test('POST /agents answers 201 with the created name once the service has it', async (t) => {
  const h = await harness(t);
  const city = await h.send('POST', 'agents', { name: 'deacon', provider: 'claude' });
  valid(t, h, city, 201, 'AgentCreatedOutputBody');
  t.same(city.json, { status: 'ok', agent: 'deacon' });
  const rig = await h.send('POST', 'agents', { name: 'worker', provider: 'mock', dir: 'rig1', scope: 'rig' });
  valid(t, h, rig, 201, 'AgentCreatedOutputBody');
  t.same(rig.json, { status: 'ok', agent: 'rig1/worker' });
  t.same(h.agents.calls, [
    { method: 'create', args: [{ name: 'deacon', provider: 'claude' }, 'api'] },
    { method: 'create', args: [{ name: 'worker', provider: 'mock', dir: 'rig1', scope: 'rig' }, 'api'] },
  ]);
});

t.test('both path forms read, change, remove, suspend and resume the agent they name', async (t) => {
  const h = await harness(t);
  for (const [path, name] of FORMS) {
    const view = h.agents.views.get(name)!;
    const got = await h.send('GET', path);
    valid(t, h, got, 200, 'AgentResponse');
    t.same(got.json, view);
    indexed(t, got, 7);
    const peek = await h.send('GET', `${path}?peek=true`);
    valid(t, h, peek, 200, 'AgentResponse');
    t.equal(peek.json.last_output, 'echo: hi');
    const patched = await h.send('PATCH', path, { provider: 'claude', scope: 'city', suspended: true });
    t.same([patched.status, patched.json], [200, { status: 'ok' }], 'upstream OKResponseBody');
    const empty = await h.send('PATCH', path, {});
    t.equal(empty.status, 200, 'an empty patch changes nothing, as upstream');
    for (const action of ['suspend', 'resume']) {
      const res = await h.send('POST', `${path}/${action}`);
      t.same([res.status, res.json], [200, { status: 'ok' }], action);
    }
    const removed = await h.send('DELETE', path);
    t.same([removed.status, removed.json], [200, { status: 'ok' }], 'removed');
  }
  const expected = FORMS.flatMap(([, name]) => [
    { method: 'get', args: [name, {}] },
    { method: 'get', args: [name, { peek: true }] },
    { method: 'update', args: [name, { provider: 'claude', scope: 'city', suspended: true }, 'api'] },
    { method: 'update', args: [name, {}, 'api'] },
    { method: 'act', args: [name, 'suspend', 'api'] },
    { method: 'act', args: [name, 'resume', 'api'] },
    { method: 'remove', args: [name, 'api'] },
  ]);
  t.same(h.agents.calls, expected);
  await h.send('GET', `agent/${encodeURIComponent('a b')}/${encodeURIComponent('c d')}`);
  t.equal(h.agents.calls.at(-1)?.args[0], 'a b/c d', 'the segments reach the service decoded');
});

t.test('GET …/output passes tail and before, in both forms', async (t) => {
  const h = await harness(t);
  const output: AgentOutput = {
    agent: 'mayor',
    format: 'conversation',
    turns: [turn(1), turn(2)],
    pagination: {
      has_older_messages: true,
      total_message_count: 9,
      returned_message_count: 2,
      truncated_before_message: 'u-7',
      total_compactions: 2,
    },
  };
  h.agents.outputs.set('mayor', output);
  h.agents.outputs.set('rig1/worker', { agent: 'rig1/worker', format: 'text', turns: [] });
  const res = await h.send('GET', 'agent/mayor/output?tail=0&before=u-9');
  valid(t, h, res, 200, 'AgentOutputResponse');
  t.same(res.json, output);
  const rig = await h.send('GET', 'agent/rig1/worker/output?tail=&before=');
  valid(t, h, rig, 200, 'AgentOutputResponse');
  await h.send('GET', 'agent/mayor/output?tail=2');
  t.same(
    h.agents.calls.map((c) => c.args),
    [
      ['mayor', { tail: 0, before: 'u-9' }],
      ['rig1/worker', {}],
      ['mayor', { tail: 2 }],
    ],
  );
});

/** [what, method, path, body, the `errors[]` locations expected] */
const INVALID: Array<[string, string, string, unknown, string[]]> = [
  ['no provider', 'POST', 'agents', { name: 'x' }, ['body.provider']],
  ['empty name', 'POST', 'agents', { name: '', provider: 'mock' }, ['body.name']],
  ['empty provider', 'POST', 'agents', { name: 'x', provider: '' }, ['body.provider']],
  ['a number as dir', 'POST', 'agents', { name: 'x', provider: 'mock', dir: 1 }, ['body.dir']],
  ['unknown create field', 'POST', 'agents', { name: 'x', provider: 'mock', pool: 3 }, ['body.pool']],
  ['suspended not a boolean', 'PATCH', 'agent/mayor', { suspended: 'yes' }, ['body.suspended']],
  ['unknown patch field', 'PATCH', 'agent/rig1/worker', { name: 'y' }, ['body.name']],
  ['a body that is not an object', 'PATCH', 'agent/mayor', ['x'], ['body']],
  ['an unknown action', 'POST', 'agent/mayor/restart', undefined, ['path.action']],
  ['an unknown qualified action', 'POST', 'agent/rig1/worker/drain', undefined, ['path.action']],
];

t.test(
  'invalid bodies and actions are 422 problems naming the field, and never reach the service',
  async (t) => {
    const h = await harness(t);
    for (const [what, method, path, body, locations] of INVALID) {
      const res = await h.send(method, path, body);
      t.equal(res.status, 422, `${what}: ${res.raw}`);
      t.equal(res.json.detail, 'validation failed', what);
      t.same(
        [...new Set((res.json.errors ?? []).map((e) => e.location))],
        locations,
        `${what}: errors[] names ${locations.join(', ')}`,
      );
      t.same(h.v.component('ErrorModel', res.json), [], `${what}: a valid ErrorModel`);
      t.match(res.headers['content-type'], /^application\/problem\+json/);
    }
    t.same(h.agents.calls, [], 'the service was never called');
  },
);

t.test('bad query values are 422 problems naming the parameter, and never reach the service', async (t) => {
  const h = await harness(t);
  const cases: Array<[string, string]> = [
    ['agents?running=yes', 'query.running'],
    ['agents?peek=maybe', 'query.peek'],
    ['agents?index=-1', 'query.index'],
    ['agents?index=1e3', 'query.index'],
    ['agents?index=1&wait=soon', 'query.wait'],
    ['agents?state=idle', 'query.state'],
    ['agent/mayor?peek=2', 'query.peek'],
    ['agent/mayor/output?tail=abc', 'query.tail'],
    ['agent/mayor/output?tail=-1', 'query.tail'],
    ['agent/rig1/worker/output?tail=0x10', 'query.tail'],
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
  t.same(h.agents.calls, [], 'the service was never called');
});

t.test("the service's errors are the catalogue's problems", async (t) => {
  const h = await harness(t);
  const cases: Array<[Error, number, string]> = [
    [new NotFoundError('agent not found: ghost'), 404, 'not_found: agent not found: ghost'],
    [new ConflictError('agent "mayor" already exists'), 409, 'conflict: agent "mayor" already exists'],
    [
      new ValidationError('validation failed', null, {
        errors: [{ location: 'body.provider', message: 'unknown provider', value: 'nope' }],
      }),
      422,
      'validation failed',
    ],
    [new UnavailableError('city.toml is being written'), 503, 'unavailable: city.toml is being written'],
  ];
  const requests: Array<[string, string, unknown?]> = [
    ['GET', 'agents'],
    ['GET', 'agent/ghost'],
    ['GET', 'agent/rig1/ghost'],
    ['PATCH', 'agent/ghost', { suspended: true }],
    ['PATCH', 'agent/rig1/ghost', { provider: 'x' }],
    ['DELETE', 'agent/ghost'],
    ['DELETE', 'agent/rig1/ghost'],
    ['POST', 'agent/ghost/suspend'],
    ['POST', 'agent/rig1/ghost/resume'],
    ['GET', 'agent/ghost/output'],
    ['GET', 'agent/rig1/ghost/output'],
  ];
  for (const [error, status, detail] of cases) {
    h.agents.fail = error;
    for (const [method, path, body] of requests) {
      const res = await h.send(method, path, body);
      t.equal(res.status, status, `${error.name} on ${method} ${path}: ${res.raw}`);
      t.equal(res.json.detail, detail);
      t.equal(res.headers['retry-after'], undefined, 'only a create says when to retry');
      t.same(h.v.component('ErrorModel', res.json), [], 'a valid ErrorModel');
    }
  }
  h.agents.fail = cases[2]![0];
  const refused = await h.send('POST', 'agents', { name: 'x', provider: 'nope' });
  t.same(refused.json.errors, [{ location: 'body.provider', message: 'unknown provider', value: 'nope' }]);
  t.equal(h.agents.calls.length, cases.length * requests.length + 1, 'each reached the service once');
});

t.test('a create whose visibility is not confirmed is a 503 or 504 with Retry-After', async (t) => {
  const h = await harness(t);
  const cases: Array<[Error, number, string]> = [
    [
      new UnavailableError('visibility not confirmed: canceled'),
      503,
      'unavailable: visibility not confirmed: canceled',
    ],
    [
      new GatewayTimeoutError('agent deacon stored; not visible after 10s'),
      504,
      'timeout: agent deacon stored; not visible after 10s',
    ],
  ];
  for (const [error, status, detail] of cases) {
    h.agents.fail = error;
    const res = await h.send('POST', 'agents', { name: 'deacon', provider: 'mock' });
    t.equal(res.status, status, res.raw);
    t.equal(res.json.detail, detail);
    t.equal(res.headers['retry-after'], '1', 'Retry-After says when to look again');
    t.same(h.v.component('ErrorModel', res.json), [], 'a valid ErrorModel');
  }
  h.agents.fail = new ConflictError('agent "deacon" already exists');
  const conflict = await h.send('POST', 'agents', { name: 'deacon', provider: 'mock' });
  t.same([conflict.status, conflict.headers['retry-after']], [409, undefined], 'a refusal is final');
  const bare = await harness(t, {});
  const absent = await bare.send('POST', 'agents', { name: 'deacon', provider: 'mock' });
  t.same([absent.status, absent.headers['retry-after']], [503, '1'], 'a service not started yet: retry');
});

t.test('a city that is not running is a 404; one without its agent service a 503', async (t) => {
  const h = await harness(t);
  const gone = await h.send('GET', '/v0/city/nobody/agents');
  t.same([gone.status, gone.json.detail], [404, 'not_found: city not found or not running: nobody']);
  h.cities.update(CITY, { running: false });
  for (const [method, path] of [
    ['GET', 'agent/mayor'],
    ['POST', 'agent/rig1/worker/suspend'],
    ['GET', 'agent/mayor/output/stream'],
  ] as const) {
    const res = await h.send(method, path);
    t.same([res.status, res.json.detail], [404, `not_found: city not found or not running: ${CITY}`], path);
  }

  const bare = await harness(t, {});
  for (const [method, path, body] of [
    ['GET', 'agents'],
    ['GET', 'agent/mayor'],
    ['PATCH', 'agent/rig1/worker', {}],
    ['DELETE', 'agent/mayor'],
    ['GET', 'agent/mayor/output'],
    ['GET', 'agent/mayor/output/stream'],
  ] as const) {
    const res = await bare.send(method, path, body);
    t.equal(res.status, 503, `${method} ${path}`);
    t.equal(res.json.detail, `unavailable: agent service is not started for city ${CITY}`);
  }
  t.same(h.agents.calls, []);
});

t.test('an agent mutation without X-GC-Request is refused before the service', async (t) => {
  const h = await harness(t);
  for (const [method, path, body] of [
    ['POST', 'agents', { name: 'x', provider: 'mock' }],
    ['PATCH', 'agent/mayor', {}],
    ['DELETE', 'agent/rig1/worker'],
    ['POST', 'agent/mayor/suspend'],
  ] as const) {
    const res = await h.send(method, path, body, {});
    t.same([res.status, res.json.detail], [403, 'csrf: X-GC-Request header required on mutation endpoints']);
  }
  t.same(h.agents.calls, []);
});

t.test("the document lists upstream's 14 agent operations with their shapes", async (t) => {
  const h = await harness(t);
  type Op = {
    operationId: string;
    parameters?: Array<{ name: string; in: string; schema: { enum?: string[] } }>;
    requestBody?: { content: Record<string, { schema: { title?: string } }> };
    responses: Record<
      string,
      {
        headers?: Record<string, unknown>;
        content?: Record<string, { schema: { $ref?: string; title?: string } }>;
      }
    >;
  };
  const doc = (await h.app.inject({ url: '/openapi.json' })).json<{
    paths: Record<string, Record<string, Op>>;
  }>();
  const json = 'application/json';
  const sse = 'text/event-stream';
  const expected: Array<[string, string, string, string, string, string, string?]> = [
    ['get', '/agents', 'get-v0-city-by-city-name-agents', '200', json, 'ListBodyAgentResponse'],
    ['post', '/agents', 'create-agent', '201', json, 'AgentCreatedOutputBody', 'AgentCreateInputBody'],
  ];
  for (const [path, stem, stream, update] of [
    ['/agent/{base}', 'agent-by-base', 'stream-agent-output', 'AgentUpdateInputBody'],
    [
      '/agent/{dir}/{base}',
      'agent-by-dir-by-base',
      'stream-agent-output-qualified',
      'AgentUpdateQualifiedInputBody',
    ],
  ] as const) {
    const id = `v0-city-by-city-name-${stem}`;
    expected.push(
      ['get', path, `get-${id}`, '200', json, 'AgentResponse'],
      ['patch', path, `patch-${id}`, '200', json, 'OKResponseBody', update],
      ['delete', path, `delete-${id}`, '200', json, 'OKResponseBody'],
      ['post', `${path}/{action}`, `post-${id}-by-action`, '200', json, 'OKResponseBody'],
      ['get', `${path}/output`, `get-${id}-output`, '200', json, 'AgentOutputResponse'],
      ['get', `${path}/output/stream`, stream, '200', sse, 'Server-Sent Events'],
    );
  }
  t.equal(expected.length, 14);
  for (const [method, path, operationId, status, type, response, body] of expected) {
    const op = doc.paths[`/v0/city/{cityName}${path}`]?.[method];
    t.equal(op?.operationId, operationId, `${method} ${path}`);
    const schema = op?.responses[status]?.content?.[type]?.schema;
    t.ok(schema, `${operationId} answers ${status} ${type}`);
    const named = schema?.$ref ?? schema?.title;
    t.ok(named === response || named === `#/components/schemas/${response}`, `${operationId}: ${response}`);
    if (body) t.equal(op?.requestBody?.content[json]?.schema.title, body, `${operationId}: ${body}`);
    if (path.endsWith('{action}')) {
      t.same(op?.parameters?.find((p) => p.name === 'action')?.schema.enum, ['suspend', 'resume']);
    }
    if (path.endsWith('stream')) t.ok(op?.responses['200']?.headers?.['GC-Agent-Status'], 'GC-Agent-Status');
  }
  const list = doc.paths['/v0/city/{cityName}/agents']?.get;
  t.same(
    list?.parameters
      ?.filter((p) => p.in === 'query')
      .map((p) => p.name)
      .sort(),
    ['index', 'peek', 'pool', 'rig', 'running', 'wait'],
  );
  t.same(list?.parameters?.find((p) => p.name === 'running')?.schema.enum, ['true', 'false']);
});

/** A harness listening on a real socket, its streams polling every few milliseconds. */
async function live(t: Test, heartbeatMs = 60_000): Promise<Harness & { url: (path: string) => string }> {
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const agents = new RecordingAgents();
  cities.set({
    name: CITY,
    path: `/cities/${CITY}`,
    journal: new MemoryJournal(CITY),
    running: true,
    services: { [AGENT_SERVICE]: agents },
  });
  const { app, deps } = await memoryApp({ cities, config: heartbeat(heartbeatMs) });
  setAgentOutputPollMs(deps, 5);
  t.teardown(() => app.close());
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    deps,
    agents,
    cities,
    v: await validatorOf(app),
    send: () => Promise.reject(new Error('use url()')),
    url: (path) => `${base}${BASE}/${path}`,
  };
}

t.test(
  'the output stream sends the recorded turns, then each new turn once, with GC-Agent-Status',
  async (t) => {
    const h = await live(t, 40);
    h.agents.outputs.set('rig1/worker', conversation('rig1/worker', [turn(1), turn(2)]));
    const sse = await openSse(h.url('agent/rig1/worker/output/stream'));
    t.teardown(() => sse.close());
    t.equal(sse.status, 200);
    t.match(sse.headers['content-type'], /^text\/event-stream/);
    t.equal(sse.headers['gc-agent-status'], 'stopped', 'the agent is not running: a replay of its log');
    t.ok(sse.headers['x-gc-request-id'], 'X-GC-Request-Id like every response');
    const first = await sse.nextEvent();
    t.same([first.event, first.id], ['turn', '2']);
    const data = JSON.parse(first.data) as AgentOutputResponse;
    t.same(h.v.component('AgentOutputResponse', data), [], 'a valid AgentOutputResponse');
    t.same(data, { agent: 'rig1/worker', format: 'conversation', turns: [turn(1), turn(2)] });

    h.agents.outputs.set('rig1/worker', conversation('rig1/worker', [turn(1), turn(2), turn(3), turn(4)]));
    const next = await sse.nextEvent();
    t.same([next.event, next.id], ['turn', '4']);
    t.same((JSON.parse(next.data) as AgentOutputResponse).turns, [turn(3), turn(4)], 'only the new turns');

    // A page of the latest turns: positions come from the conversation's total.
    h.agents.outputs.set('rig1/worker', conversation('rig1/worker', [turn(4), turn(5)], 5));
    const paged = await sse.nextEvent();
    t.same([paged.id, (JSON.parse(paged.data) as AgentOutputResponse).turns], ['5', [turn(5)]]);

    const beat = await sse.next();
    t.equal(beat.event, 'heartbeat', 'heartbeats between turns');
    t.equal(beat.id, undefined, 'a heartbeat has no id');
    t.same(h.v.component('HeartbeatEvent', JSON.parse(beat.data)), []);
  },
);

t.test('a stream resumes after Last-Event-ID; a running agent has no GC-Agent-Status', async (t) => {
  const h = await live(t);
  h.agents.outputs.set('mayor', conversation('mayor', [turn(1), turn(2), turn(3)]));
  const resumed = await openSse(h.url('agent/mayor/output/stream'), { 'last-event-id': '2' });
  t.teardown(() => resumed.close());
  t.equal(resumed.status, 200);
  t.equal(resumed.headers['gc-agent-status'], undefined, 'absent while the agent runs');
  const first = await resumed.nextEvent();
  t.same([first.id, (JSON.parse(first.data) as AgentOutputResponse).turns], ['3', [turn(3)]]);
  resumed.close();

  const caughtUp = await openSse(h.url('agent/mayor/output/stream'), { 'last-event-id': '3' });
  t.teardown(() => caughtUp.close());
  h.agents.outputs.set('mayor', conversation('mayor', [turn(1), turn(2), turn(3), turn(4)]));
  const only = await caughtUp.nextEvent();
  t.same([only.id, (JSON.parse(only.data) as AgentOutputResponse).turns], ['4', [turn(4)]], 'nothing twice');
});

t.test('a replaced conversation is sent from its start; a screen whenever it changes', async (t) => {
  const h = await live(t);
  h.agents.outputs.set('mayor', conversation('mayor', [turn(1), turn(2)]));
  const sse = await openSse(h.url('agent/mayor/output/stream'));
  t.teardown(() => sse.close());
  t.equal((await sse.nextEvent()).id, '2');
  const fresh = [{ ...turn(1), text: 'new session', timestamp: '2026-02-01T00:00:00Z' }, turn(9)];
  h.agents.outputs.set('mayor', conversation('mayor', fresh));
  const again = await sse.nextEvent();
  t.same([again.id, (JSON.parse(again.data) as AgentOutputResponse).turns], ['2', fresh], 'a new log, whole');

  const screen = (text: string): AgentOutput => ({
    agent: 'mayor',
    format: 'text',
    turns: [{ role: 'output', text }],
  });
  h.agents.outputs.set('mayor', screen('$ make'));
  const shown = await sse.nextEvent();
  t.equal(shown.id, undefined, 'a screen has no position');
  t.same(JSON.parse(shown.data), screen('$ make'));
  h.agents.outputs.set('mayor', screen('$ make\nok'));
  t.same(JSON.parse((await sse.nextEvent()).data), screen('$ make\nok'), 'sent again once it changed');
});

t.test('stream setup failures are problems before the 200', async (t) => {
  const h = await live(t);
  h.agents.views.set('idle', { ...WORKER, name: 'idle' });
  h.agents.outputs.set('idle', { agent: 'idle', format: 'text', turns: [] });
  const cases: Array<[string, Record<string, string>, number, string]> = [
    ['agent/ghost/output/stream', {}, 404, 'not_found: agent not found: ghost'],
    ['agent/rig1/ghost/output/stream', {}, 404, 'not_found: agent not found: rig1/ghost'],
    ['agent/idle/output/stream', {}, 404, 'not_found: agent idle has no session log and is not running'],
    ['agent/rig1/worker/output/stream', {}, 404, 'not_found: agent rig1/worker has no output'],
    ['agent/mayor/output/stream', { 'last-event-id': 'x' }, 400, 'invalid: Last-Event-ID must be'],
  ];
  for (const [path, headers, status, detail] of cases) {
    const res = await openSse(h.url(path), headers);
    t.equal(res.status, status, `${path}: ${res.body}`);
    t.match(res.headers['content-type'], /^application\/problem\+json/);
    t.match(JSON.parse(res.body), {
      detail: new RegExp(`^${detail.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    });
  }
});

t.test('a stream ends when its agent goes, and when the city stops', async (t) => {
  const h = await live(t);
  h.agents.outputs.set('mayor', conversation('mayor', [turn(1)]));
  const sse = await openSse(h.url('agent/mayor/output/stream'));
  await sse.nextEvent();
  h.agents.outputs.delete('mayor');
  await sse.ended;
  t.ok(sse.isEnded, 'a failed read ends the stream: the client reconnects and learns why');

  h.agents.outputs.set('mayor', conversation('mayor', [turn(1)]));
  const other = await openSse(h.url('agent/mayor/output/stream'));
  await other.nextEvent();
  h.cities.remove(CITY);
  await other.ended;
  t.ok(other.isEnded, 'the city left');
});
