import t, { type Test } from 'tap';
import { AGENT_SERVICE, type AgentApi } from '../../actors/agents/agentApi.ts';
import { EXTMSG_SERVICE, startExtmsgService } from '../../actors/extmsg/index.ts';
import { SESSION_SERVICE, type SessionApi } from '../../actors/sessions/sessionApi.ts';
import { schemaDocuments } from '../../http/schemaDocuments.ts';
import { backendEnv, cityHarness, createBead, type CityHarness } from '../beads/helpers.ts';
import { openSse } from '../helpers/sse.ts';

/**
 * One integer grammar for every integer-valued query parameter on every route: decimal digits only, at
 * most 2^53 - 1; a blank value is absent. Anything else is a problem naming the parameter at
 * `query.<name>`, never a silent Infinity, hex or rounded value. Every request goes over a real socket.
 */

const BAD = [
  '1e309',
  '1e3',
  '99999999999999999999',
  '9007199254740992',
  '0x10',
  '-1',
  '-0',
  '1.5',
  '1.0',
  ' 1',
  '1 ',
  '+1',
  'Infinity',
  'abc',
  '１',
];

/** Values that must keep working (the largest one does not block a list: it is past every head). */
const GOOD = ['0', '1', '007', '9007199254740991'];

interface Param {
  path: string;
  name: string;
  /** The stream refuses a resume value before it starts, as its other resume values: a 400 `invalid:`. */
  stream?: true;
  /** A documented ceiling below 2^53 - 1 (upstream's own); larger values are refused like malformed ones. */
  maximum?: number;
  /** A documented floor above 0 (a page of no messages means nothing); smaller values are refused. */
  minimum?: number;
  /**
   * What the route answers a well-formed value here, when not 200: the transcript needs a real session
   * service (this city has a read-only stand-in), so its handler answers 503 once the value has passed.
   */
  answers?: number;
  /** Other query parameters the route requires (`name=value&…`). */
  query?: string;
}

/** Every integer-valued query parameter; the test below checks the list against the OpenAPI document. */
const PARAMS: Param[] = [
  { path: '/v0/events', name: 'limit' },
  { path: '/v0/city/{cityName}/events', name: 'limit' },
  { path: '/v0/city/{cityName}/events', name: 'after_seq' },
  { path: '/v0/city/{cityName}/events', name: 'index' },
  { path: '/v0/city/{cityName}/events/stream', name: 'after_seq', stream: true },
  { path: '/v0/city/{cityName}/beads', name: 'limit' },
  { path: '/v0/city/{cityName}/beads', name: 'index' },
  { path: '/v0/city/{cityName}/beads/ready', name: 'index' },
  { path: '/v0/city/{cityName}/mail', name: 'limit' },
  { path: '/v0/city/{cityName}/mail', name: 'index' },
  { path: '/v0/city/{cityName}/convoys', name: 'limit' },
  { path: '/v0/city/{cityName}/convoys', name: 'index' },
  { path: '/v0/city/{cityName}/status', name: 'index' },
  { path: '/v0/city/{cityName}/sessions', name: 'limit' },
  { path: '/v0/city/{cityName}/session/{id}', name: 'peek_lines', maximum: 10_000 },
  { path: '/v0/city/{cityName}/agents', name: 'index' },
  { path: '/v0/city/{cityName}/agent/{base}/output', name: 'tail' },
  { path: '/v0/city/{cityName}/agent/{dir}/{base}/output', name: 'tail' },
  { path: '/v0/city/{cityName}/extmsg/transcript', name: 'after_sequence' },
  { path: '/v0/city/{cityName}/extmsg/transcript', name: 'limit' },
  // The harness city runs no formulas service: good values pass validation and reach the 503.
  { path: '/v0/city/{cityName}/formulas/feed', name: 'limit', answers: 503 },
  { path: '/v0/city/{cityName}/formulas/{name}/runs', name: 'limit', answers: 503 },
  // Nor an orders service.
  { path: '/v0/city/{cityName}/orders/feed', name: 'limit', answers: 503 },
  { path: '/v0/city/{cityName}/orders/history', name: 'limit', answers: 503, query: 'scoped_name=nightly' },
  // Nor a config service.
  { path: '/v0/city/{cityName}/rigs', name: 'index', answers: 503 },
  { path: '/v0/city/{cityName}/session/{id}/transcript', name: 'tail', maximum: 1_000_000, answers: 503 },
  {
    path: '/v0/city/{cityName}/session/{id}/transcript',
    name: 'limit',
    minimum: 1,
    maximum: 5000,
    answers: 503,
  },
];

/** Just enough of a session service for the session routes' reads to answer 200 (their own tests are in sessions.test.ts). */
const readOnlySessions = {
  index: 0,
  list: async () => ({ items: [], total: 0 }),
  get: async (id: string) => ({
    ...{ id, template: 't', title: 't', provider: 'mock', session_name: id, state: 'active' },
    ...{ created_at: '2026-01-01T00:00:00Z', running: true, attached: false },
  }),
  create: () => Promise.reject(new Error('read-only')),
} as unknown as SessionApi;

/** Just enough of an agent service for the agent routes' reads to answer 200 (their own tests are in agents.test.ts). */
const readOnlyAgents = {
  index: 0,
  waitForIndex: (_index: number, _ms: number, signal?: AbortSignal) =>
    new Promise<boolean>((resolve) => {
      if (signal?.aborted) resolve(false);
      signal?.addEventListener('abort', () => resolve(false), { once: true });
    }),
  list: async () => ({ items: [], total: 0 }),
  act: () => Promise.reject(new Error('read-only')),
  output: async (agent: string) => ({ agent, format: 'text', turns: [] }),
} as unknown as AgentApi;

interface Answer {
  status: number;
  type: string;
  body: string;
}

async function server(t: Test): Promise<{ h: CityHarness; base: string }> {
  const env = await backendEnv(t, 'memory');
  const h = await cityHarness(t, env!);
  for (const title of ['one', 'two', 'three']) await createBead(t, h, { title });
  const city = h.deps.cities.get(h.name)!;
  const extmsg = await startExtmsgService({ name: h.name, journal: h.journal });
  t.teardown(() => extmsg.stop());
  h.deps.cities.update(h.name, {
    services: {
      ...city.services,
      [SESSION_SERVICE]: readOnlySessions,
      [AGENT_SERVICE]: readOnlyAgents,
      [EXTMSG_SERVICE]: extmsg.service,
    },
  });
  return { h, base: await h.app.listen({ port: 0, host: '127.0.0.1' }) };
}

/** GETs `path?name=value` (the value percent-encoded) and reads the whole answer; a 200 stream is closed. */
async function get(base: string, h: CityHarness, { path, name, stream, query }: Param, value: string) {
  const url = `${base}${path.replace('{cityName}', h.name).replace('{id}', 's-1')}?${query ? `${query}&` : ''}${name}=${encodeURIComponent(value)}`;
  if (stream) {
    const sse = await openSse(url);
    sse.close();
    return { status: sse.status, type: String(sse.headers['content-type']), body: sse.body };
  }
  // An index that passed nothing yet would block: a short wait keeps a good value quick.
  const res = await fetch(name === 'index' ? `${url}&wait=1ms` : url);
  return { status: res.status, type: String(res.headers.get('content-type')), body: await res.text() };
}

const label = (p: Param, value: string) => `${p.path}?${p.name}=${JSON.stringify(value)}`;

t.test('every route refuses every malformed integer, naming the parameter', async (t) => {
  const { h, base } = await server(t);
  for (const param of PARAMS) {
    const over = [
      ...(param.maximum === undefined ? [] : [String(param.maximum + 1)]),
      ...(param.minimum === undefined ? [] : [String(param.minimum - 1)]),
    ];
    for (const value of [...BAD, ...over]) {
      const res: Answer = await get(base, h, param, value);
      const what = label(param, value);
      t.equal(res.status, param.stream ? 400 : 422, what);
      t.match(res.type, /^application\/problem\+json/, what);
      const problem = JSON.parse(res.body) as { detail: string; errors?: unknown[] };
      t.match(problem.detail, param.stream ? /^invalid: after_seq must be/ : /^validation failed$/, what);
      if (over.includes(value)) {
        t.match(problem.errors, [{ location: `query.${param.name}`, message: /must be [<>]= / }], what);
        continue;
      }
      t.same(
        problem.errors,
        [{ location: `query.${param.name}`, message: `${param.name} must be a non-negative integer`, value }],
        what,
      );
    }
  }
});

t.test('good values and blank values still work everywhere', async (t) => {
  const { h, base } = await server(t);
  for (const param of PARAMS) {
    const good = GOOD.filter(
      (v) =>
        (param.maximum === undefined || Number(v) <= param.maximum) &&
        (param.minimum === undefined || Number(v) >= param.minimum),
    );
    for (const value of [...good, ...(param.maximum === undefined ? [] : [String(param.maximum)]), '']) {
      const res = await get(base, h, param, value);
      t.equal(res.status, param.answers ?? 200, `${label(param, value)}: ${res.body}`);
    }
  }
});

t.test('the accepted values mean what they say', async (t) => {
  const { h, base } = await server(t);
  const items = async (path: string) =>
    ((await (await fetch(`${base}${path}`)).json()) as { items: Array<{ seq?: number }> }).items;
  t.equal((await items(`/v0/city/${h.name}/events?limit=1`)).length, 1);
  t.equal((await items(`/v0/city/${h.name}/events?limit=002`)).length, 2);
  t.equal((await items('/v0/events?limit=1')).length, 1);
  t.equal((await items(`/v0/city/${h.name}/beads?limit=1`)).length, 1);
  const head = (await items(`/v0/city/${h.name}/events`)).length;
  t.ok(head >= 3, 'the city has events');
  t.same(
    (await items(`/v0/city/${h.name}/events?after_seq=${head - 1}`)).map((e) => e.seq),
    [head],
    'after_seq keeps only the events after it',
  );
  t.same(await items(`/v0/city/${h.name}/events?after_seq=9007199254740991`), []);
  t.equal((await items(`/v0/city/${h.name}/events?after_seq=`)).length, head, 'blank after_seq is absent');
});

t.test('the list above is every integer query parameter in the OpenAPI document', async (t) => {
  const doc = JSON.parse((await schemaDocuments())['openapi.json']) as {
    paths: Record<
      string,
      Record<string, { parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }> }>
    >;
  };
  const found: string[] = [];
  const ceiling = (path: string, name: string) =>
    PARAMS.find((p) => p.path === path && p.name === name)?.maximum ?? Number.MAX_SAFE_INTEGER;
  const floor = (path: string, name: string) =>
    PARAMS.find((p) => p.path === path && p.name === name)?.minimum ?? 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const op of Object.values(ops)) {
      for (const p of op.parameters ?? []) {
        // `index` and the stream's `after_seq` are strings on the wire, as upstream declares them, and so
        // are the integers upstream types as strings of digits (`tail`: http/openapiNames.ts).
        const integer =
          p.schema.type === 'integer' ||
          ['index', 'after_seq'].includes(p.name) ||
          p.schema.pattern === '^[0-9]+$';
        if (p.in !== 'query' || !integer) continue;
        found.push(`${path} ${p.name}`);
        if (p.schema.type === 'integer') {
          t.match(
            p.schema,
            { minimum: floor(path, p.name), maximum: ceiling(path, p.name) },
            `${path} ${p.name} range`,
          );
        }
      }
    }
  }
  t.same(found.sort(), PARAMS.map((p) => `${p.path} ${p.name}`).sort());
});
