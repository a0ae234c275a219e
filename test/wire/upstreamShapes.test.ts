/**
 * Every body we answer has upstream's shape. A real supervisor (bead store, sessions on the in-memory fake
 * runtime, agents, config, extmsg, formulas, orders, workspace services, maintenance; no tmux) runs one city
 * with some of everything: beads, mail, a convoy, rigs, agents, a session, a provider, patches, an
 * extmsg conversation, a cooked workflow, an order run, a workspace service. Then every GET of upstream's
 * document whose path parameters the city can fill, and one successful call of each mutation family, is
 * sent over HTTP, and each 2xx JSON body is validated against the schema upstream's document
 * (`../shared/reference/upstream-openapi.json`) gives that operation and status, with Ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1). A few error answers are checked against upstream's `ErrorModel`.
 * The table must cover every GET of `ops.tsv` but a short list of explicit exclusions, so a new operation
 * cannot slip past.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Import from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import t, { type Test } from 'tap';
import { agentServiceFactory } from '../../actors/agents/startAgentService.ts';
import { beadStoreService } from '../../actors/beads/index.ts';
import { linkedConfigService } from '../../actors/supervisor/linkedConfigService.ts';
import { extmsgServiceFactory } from '../../actors/extmsg/startExtmsgService.ts';
import { formulaServiceFactory } from '../../actors/formulas/startFormulaService.ts';
import { maintenanceServiceFactory } from '../../actors/maintenance/startMaintenance.ts';
import { orderServiceFactory } from '../../actors/orders/startOrderService.ts';
import { sessionServiceFactory } from '../../actors/sessions/startSessionService.ts';
import { workspaceServicesFactory } from '../../actors/workspaceServices/startWorkspaceServices.ts';
import { openSse } from '../helpers/sse.ts';
import { upstreamDocument, upstreamDocumentPath } from '../helpers/upstreamDocument.ts';
import {
  eventually,
  fakeHost,
  startTestSupervisor,
  waitForTerminal,
  type Reply,
  type TestSupervisor,
} from '../helpers/supervisor.ts';

const Ajv2020 = Ajv2020Import.default;
const addFormats = addFormatsImport.default;

const REFERENCE = dirname(upstreamDocumentPath());

interface UpstreamDoc {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }> }> }>
  >;
}
const UPSTREAM = upstreamDocument<UpstreamDoc>();

/** The rows of ops.tsv (one per operation, header first), as columns. */
const ROWS = readFileSync(join(REFERENCE, 'ops.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.split('\t'));
/** `METHOD /path` of every operation. */
const OPS = ROWS.map((cols) => `${cols[0]} ${cols[1]}`);
/** The response headers upstream declares for each operation (`X-GC-Request-Id` on all). */
const RESPONSE_HEADERS = new Map(ROWS.map((cols) => [`${cols[0]} ${cols[1]}`, (cols[12] ?? '').split(',')]));
/** Of those, the ones every success carries (the others are conditional: GC-Agent-Status, GC-Session-*). */
const ALWAYS = ['X-GC-Request-Id', 'X-GC-Index', 'X-GC-Cache-Age-S'];

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat('int64', true);
ajv.addFormat('int32', true);
ajv.addFormat('double', true);
ajv.addSchema(UPSTREAM, 'upstream.json');

const compiled = new Map<string, ValidateFunction>();
/** The validator of upstream's JSON schema for `op` (`METHOD /path`) answering `status`. */
function upstreamSchema(op: string, status: number): ValidateFunction {
  const key = `${op} ${status}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  const [method, path] = op.split(' ') as [string, string];
  const operation = UPSTREAM.paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`upstream has no operation ${op}`);
  const response = operation.responses[String(status)];
  if (!response) throw new Error(`upstream's ${op} declares no ${status}`);
  const schema = response.content?.['application/json']?.schema as { $ref?: string } | undefined;
  if (!schema) throw new Error(`upstream's ${op} ${status} has no JSON body`);
  const validate = schema.$ref ? ajv.getSchema(`upstream.json${schema.$ref}`) : ajv.compile(schema);
  if (!validate) throw new Error(`no schema at ${schema.$ref}`);
  compiled.set(key, validate);
  return validate;
}

const errorModel = (): ValidateFunction => ajv.getSchema('upstream.json#/components/schemas/ErrorModel')!;

const describe = (errors: ErrorObject[] | null | undefined): string =>
  (errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('; ');

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'transcripts');

/** A finished sub-agent's log: its first entry names it and the parent's tool call. */
const SUBAGENT_LOG = [
  {
    type: 'user',
    uuid: 'su1',
    agentId: 'sub1',
    parentToolUseID: 't1',
    timestamp: '2026-04-01T10:00:05.000Z',
    message: { role: 'user', content: 'look' },
  },
  {
    type: 'assistant',
    uuid: 'sa1',
    parentUuid: 'su1',
    timestamp: '2026-04-01T10:00:06.000Z',
    message: { role: 'assistant', content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
  },
]
  .map((e) => JSON.stringify(e))
  .join('\n');

const CITY = 'wire';
const BASE = `/v0/city/${CITY}`;

const CITY_TOML = `[workspace]
name = "${CITY}"
provider = "mock"

[[rigs]]
name = "rig1"
path = "rig1"

[[agent]]
name = "mayor"
provider = "mock"
min_active_sessions = 1

[[agent]]
name = "scout"
dir = "rig1"
provider = "mock"
min_active_sessions = 1

[[service]]
name = "docs"

[service.workflow]
contract = "gc.docs.v1"

[maintenance.dolt]
enabled = true

[[patches.agent]]
name = "mayor"
suspended = false

[[patches.rigs]]
name = "rig1"
prefix = "r1"

[[patches.providers]]
name = "mock"
ready_delay_ms = 10
`;

const FORMULA = `description = "a two-step formula"
[[steps]]
id = "collect"
title = "collect"

[[steps]]
id = "report"
title = "report"
needs = ["collect"]
`;

const ORDER = `[order]
formula = "digest"
gate = "cooldown"
interval = "24h"
`;

/** The city's directory, written before the create (a create keeps an existing city.toml). */
function writeCity(dir: string): void {
  mkdirSync(join(dir, 'formulas'), { recursive: true });
  mkdirSync(join(dir, 'orders'), { recursive: true });
  mkdirSync(join(dir, 'rig1'), { recursive: true });
  writeFileSync(join(dir, 'city.toml'), CITY_TOML);
  writeFileSync(join(dir, 'formulas', 'digest.toml'), FORMULA);
  writeFileSync(join(dir, 'orders', 'nightly.toml'), ORDER);
}

/** One call of the table: the upstream operation it exercises and the request that does. */
interface Check {
  op: string;
  url: string;
  body?: unknown;
  /** The status expected (upstream's documented success status unless said). */
  status: number;
  /** The status whose schema the body is checked against (`status` unless said). */
  schemaStatus?: number;
  /** Our documented additions taken out of the body before the check (each names its compatibility entry). */
  strip?: (body: never) => unknown;
  headers?: Record<string, string>;
}

async function startCity(t: Test): Promise<TestSupervisor> {
  const root = mkdtempSync(join(tmpdir(), 'gc-wire-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const services = [
    beadStoreService,
    sessionServiceFactory({
      runtime: 'fake',
      thresholds: { tickMs: 50 },
      env: { GC_MOCK_LOG_DIR: join(root, 'agent-logs') },
    }),
    agentServiceFactory,
    linkedConfigService(),
    extmsgServiceFactory(),
    formulaServiceFactory,
    orderServiceFactory({ tickMs: 50 }),
    workspaceServicesFactory(),
    maintenanceServiceFactory(),
  ];
  const s = await startTestSupervisor(t, {
    tickMs: 200,
    root,
    options: { services, host: fakeHost(join(root, 'home'), { bins: ['sh', 'node'] }) },
  });
  const dir = join(s.home, CITY);
  writeCity(dir);
  const created = await run(t, s, {
    op: 'POST /v0/city',
    url: '/v0/city',
    body: { dir, provider: 'mock' },
    status: 202,
  });
  t.equal((await waitForTerminal(s.log, created.body.request_id, 20_000)).type, 'request.result.city.create');
  // The per-city routes answer 404 until the city's services started (spec 3.1); the last to start is
  // maintenance, so its status route serving means every family does.
  await eventually(async () => (await s.call('GET', `${BASE}/maintenance/status`)).status === 200, 20_000);
  return s;
}

/** Sends `check` and validates its answer; answers the reply for the next steps. */
async function run(t: Test, s: TestSupervisor, check: Check): Promise<Reply> {
  const [method] = check.op.split(' ') as [string];
  const reply = await s.call(method, check.url, check.body, check.headers);
  const name = `${check.op} (${method} ${check.url})`;
  if (reply.status !== check.status) {
    t.fail(`${name}: status ${reply.status}, expected ${check.status}: ${JSON.stringify(reply.body)}`);
    return reply;
  }
  const type = reply.headers.get('content-type') ?? '';
  t.match(type, /^application\/json/, `${name}: a JSON body`);
  const headers = (RESPONSE_HEADERS.get(check.op) ?? []).filter((h) => ALWAYS.includes(h));
  const absent = headers.filter((h) => !reply.headers.has(h));
  t.same(absent, [], `${name}: the headers upstream declares (${headers.join(', ')})`);
  const validate = upstreamSchema(check.op, check.schemaStatus ?? check.status);
  const body = check.strip ? check.strip(structuredClone(reply.body) as never) : reply.body;
  const ok = validate(body);
  t.ok(ok, `${name}: body has upstream's shape${ok ? '' : `: ${describe(validate.errors)}`}`, {
    ...(ok ? {} : { body: JSON.stringify(reply.body).slice(0, 2000) }),
  });
  return reply;
}

/**
 * GETs of ops.tsv the table does not call, each with why. Everything else of ops.tsv's GETs must be called
 * (asserted at the end), so a new operation cannot slip past.
 */
const GET_EXCLUSIONS: Record<string, string> = {};

const SSE_OPS = new Set(ROWS.filter((cols) => cols[8] === 'yes').map((cols) => `${cols[0]} ${cols[1]}`));

t.test('every answer has upstream shape', async (t) => {
  const s = await startCity(t);
  const checked = new Set<string>();
  const call = async (check: Check): Promise<Reply> => {
    checked.add(check.op);
    return run(t, s, check);
  };
  const get = (op: string, url: string, extra: Partial<Check> = {}): Promise<Reply> =>
    call({ op: `GET ${op}`, url, status: 200, ...extra });
  const post = (op: string, url: string, body?: unknown, status = 200, extra: Partial<Check> = {}) =>
    call({ op: `POST ${op}`, url, body, status, ...extra });
  const send = (method: string, op: string, url: string, body?: unknown, status = 200) =>
    call({ op: `${method} ${op}`, url, body, status });
  /**
   * SSE operations: upstream's document gives a stream no JSON schema (its frames are described only in
   * prose), so the body is not checked here; only the status and the content type are. The frames are
   * checked by the event and session stream tests (test/events/, test/sessions/sessionStream.e2e.test.ts).
   */
  const streamed = new Set<string>();
  const stream = async (op: string, url: string): Promise<void> => {
    checked.add(`GET ${op}`);
    streamed.add(`GET ${op}`);
    const sse = await openSse(`${s.url}${url}`);
    try {
      t.equal(sse.status, 200, `GET ${op} (${url}): 200 ${sse.body}`);
      t.match(String(sse.headers['content-type']), /^text\/event-stream/, `GET ${op}: an event stream`);
    } finally {
      sse.close();
    }
  };
  const C = '/v0/city/{cityName}';

  // ── Content: beads, a convoy, mail and a reply.
  const bead = await post(
    `${C}/beads`,
    `${BASE}/beads`,
    { title: 'moor', type: 'task', labels: ['harbor'] },
    201,
  );
  const other = await post(`${C}/beads`, `${BASE}/beads`, { title: 'blocker', priority: 1 }, 201);
  const beadId = bead.body.id as string;
  const otherId = other.body.id as string;
  const convoy = await post(`${C}/convoys`, `${BASE}/convoys`, { title: 'fleet', items: [beadId] }, 201);
  const convoyId = convoy.body.id as string;
  const mail = await post(
    `${C}/mail`,
    `${BASE}/mail`,
    { to: 'mayor', from: 'pilot', subject: 'docked', body: 'pier 3' },
    201,
  );
  const mailId = mail.body.id as string;
  const replied = await post(
    `${C}/mail/{id}/reply`,
    `${BASE}/mail/${mailId}/reply`,
    { from: 'mayor', body: 'noted' },
    201,
  );
  const threadId = (replied.body.thread_id ?? mail.body.thread_id) as string;
  await post(
    `${C}/events`,
    `${BASE}/events`,
    { type: 'wire.checked', actor: 'test', subject: beadId, message: 'hi' },
    201,
  );

  // ── A session on the fake runtime, and an extmsg conversation bound to it.
  const created = await post(`${C}/sessions`, `${BASE}/sessions`, { alias: 'lookout', title: 'wire' }, 202);
  t.ok(created.body.request_id);
  let sessionId = '';
  await eventually(async () => {
    const list = await s.call('GET', `${BASE}/sessions`);
    const found = (list.body?.items ?? []).find(
      (x: { alias?: string; state?: string }) => x.alias === 'lookout',
    );
    sessionId = found?.id ?? '';
    return found?.state === 'active';
  }, 20_000);
  // The fake runtime writes no conversation: the session's log (a Claude log, as the mock agent's) and one
  // sub-agent's are written here, where the transcript routes look for them.
  const key = (await s.call('GET', `${BASE}/bead/${sessionId}`)).body.metadata.session_key as string;
  const logDir = join(s.root, 'agent-logs');
  mkdirSync(join(logDir, key, 'subagents'), { recursive: true });
  copyFileSync(join(FIXTURES, 'claude-dag.jsonl'), join(logDir, `${key}.jsonl`));
  writeFileSync(join(logDir, key, 'subagents', 'agent-sub1.jsonl'), SUBAGENT_LOG);
  // Agents with min_active_sessions = 1 run a session each, so their output has something to show.
  await eventually(async () => {
    const list = await s.call('GET', `${BASE}/agents`);
    return (list.body?.items ?? []).filter((a: { running?: boolean }) => a.running).length === 2;
  }, 20_000);
  // The counts of the city's detail and status are its agents' and rigs', not zeros: one rig, two configured
  // agents, both running (the deprecated totals say the same as the counts they alias).
  const detail = (await s.call('GET', BASE)).body;
  t.match(detail, { agent_count: 2, rig_count: 1 }, 'city detail: configured agents and rigs');
  const status = (await s.call('GET', `${BASE}/status`)).body;
  t.match(
    status,
    {
      agent_count: 2,
      rig_count: 1,
      running: 2,
      agents: { total: 2, running: 2, suspended: 0, quarantined: 0 },
      rigs: { total: 1, suspended: 0 },
    },
    'city status: agents by state, rigs',
  );
  t.notOk(status.partial, 'every family answered');
  const conv = { scope_id: 'T1', provider: 'chat', account_id: 'acct', conversation_id: 'C1', kind: 'room' };
  const convQuery = 'scope_id=T1&provider=chat&account_id=acct&conversation_id=C1&kind=room';
  await post(
    `${C}/extmsg/adapters`,
    `${BASE}/extmsg/adapters`,
    { provider: 'chat', account_id: 'acct', name: 'Chat' },
    201,
  );
  await post(`${C}/extmsg/bind`, `${BASE}/extmsg/bind`, { conversation: conv, session_id: sessionId });
  const group = await post(
    `${C}/extmsg/groups`,
    `${BASE}/extmsg/groups`,
    { root_conversation: conv, mode: 'launcher' },
    201,
  );
  await post(`${C}/extmsg/participants`, `${BASE}/extmsg/participants`, {
    group_id: group.body.ID,
    handle: 'mayor',
    session_id: sessionId,
  });
  await post(`${C}/extmsg/inbound`, `${BASE}/extmsg/inbound`, {
    provider: 'chat',
    account_id: 'acct',
    message: {
      provider_message_id: 'm1',
      conversation: conv,
      actor: { id: 'U1', display_name: 'Ann', is_bot: false },
      text: 'hello',
      received_at: '2030-01-01T00:00:00Z',
    },
  });
  await post(`${C}/extmsg/outbound`, `${BASE}/extmsg/outbound`, {
    session_id: sessionId,
    conversation: conv,
    text: 'back',
  });

  // ── A cooked workflow (our cook operation; its GET and DELETE are upstream's) and an order run.
  const cooked = await s.call('POST', `${BASE}/formulas/digest/cook`, {});
  t.equal(cooked.status, 201, `cook: ${JSON.stringify(cooked.body)}`);
  const workflowId = cooked.body.workflow_id as string;
  let orderRun = '';
  await eventually(async () => {
    const res = await s.call('GET', `${BASE}/orders/history?scoped_name=nightly`);
    orderRun = res.body?.entries?.[0]?.bead_id ?? '';
    return orderRun !== '';
  }, 10_000);

  // ── Every GET.
  await get('/health', '/health');
  await get('/v0/cities', '/v0/cities');
  await get('/v0/readiness', '/v0/readiness');
  await get('/v0/provider-readiness', '/v0/provider-readiness');
  await get('/v0/events', '/v0/events');
  await stream('/v0/events/stream', '/v0/events/stream');
  await get(C, BASE);
  await get(`${C}/status`, `${BASE}/status`);
  await get(`${C}/health`, `${BASE}/health`);
  await get(`${C}/readiness`, `${BASE}/readiness`);
  await get(`${C}/provider-readiness`, `${BASE}/provider-readiness`);
  await get(`${C}/events`, `${BASE}/events`);
  await stream(`${C}/events/stream`, `${BASE}/events/stream`);
  await get(`${C}/beads`, `${BASE}/beads`);
  await get(`${C}/beads/ready`, `${BASE}/beads/ready`);
  await get(`${C}/bead/{id}`, `${BASE}/bead/${beadId}`);
  await get(`${C}/bead/{id}/deps`, `${BASE}/bead/${beadId}/deps`);
  await get(`${C}/beads/graph/{rootID}`, `${BASE}/beads/graph/${workflowId}`);
  await get(`${C}/convoys`, `${BASE}/convoys`);
  await get(`${C}/convoy/{id}`, `${BASE}/convoy/${convoyId}`);
  await get(`${C}/convoy/{id}/check`, `${BASE}/convoy/${convoyId}/check`);
  await get(`${C}/mail`, `${BASE}/mail?status=all`);
  await get(`${C}/mail/count`, `${BASE}/mail/count`);
  await get(`${C}/mail/{id}`, `${BASE}/mail/${mailId}`);
  await get(`${C}/mail/thread/{id}`, `${BASE}/mail/thread/${threadId}`);
  await get(`${C}/config`, `${BASE}/config`);
  await get(`${C}/config/defaults`, `${BASE}/config/defaults`);
  await get(`${C}/config/explain`, `${BASE}/config/explain`);
  await get(`${C}/config/validate`, `${BASE}/config/validate`);
  await get(`${C}/packs`, `${BASE}/packs`);
  await get(`${C}/agents`, `${BASE}/agents`);
  await get(`${C}/agent/{base}`, `${BASE}/agent/mayor`);
  await get(`${C}/agent/{dir}/{base}`, `${BASE}/agent/rig1/scout`);
  await get(`${C}/agent/{base}/output`, `${BASE}/agent/mayor/output`);
  await get(`${C}/agent/{dir}/{base}/output`, `${BASE}/agent/rig1/scout/output`);
  await stream(`${C}/agent/{base}/output/stream`, `${BASE}/agent/mayor/output/stream`);
  await stream(`${C}/agent/{dir}/{base}/output/stream`, `${BASE}/agent/rig1/scout/output/stream`);
  await get(`${C}/providers`, `${BASE}/providers`);
  await get(`${C}/providers/public`, `${BASE}/providers/public`);
  await get(`${C}/provider/{name}`, `${BASE}/provider/mock`);
  await get(`${C}/rigs`, `${BASE}/rigs`);
  await get(`${C}/rig/{name}`, `${BASE}/rig/rig1`);
  await get(`${C}/patches/agents`, `${BASE}/patches/agents`);
  await get(`${C}/patches/agent/{base}`, `${BASE}/patches/agent/mayor`);
  await get(`${C}/patches/rigs`, `${BASE}/patches/rigs`);
  await get(`${C}/patches/rig/{name}`, `${BASE}/patches/rig/rig1`);
  await get(`${C}/patches/providers`, `${BASE}/patches/providers`);
  await get(`${C}/patches/provider/{name}`, `${BASE}/patches/provider/mock`);
  await get(`${C}/sessions`, `${BASE}/sessions`);
  await get(`${C}/session/{id}`, `${BASE}/session/${sessionId}`);
  await get(`${C}/session/{id}/pending`, `${BASE}/session/${sessionId}/pending`);
  await get(`${C}/session/{id}/transcript`, `${BASE}/session/${sessionId}/transcript`);
  await get(`${C}/session/{id}/agents`, `${BASE}/session/${sessionId}/agents`);
  await get(`${C}/session/{id}/agents/{agentId}`, `${BASE}/session/${sessionId}/agents/sub1`);
  await stream(`${C}/session/{id}/stream`, `${BASE}/session/${sessionId}/stream`);
  await get(`${C}/pending`, `${BASE}/pending`);
  await get(`${C}/extmsg/adapters`, `${BASE}/extmsg/adapters`);
  await get(`${C}/extmsg/bindings`, `${BASE}/extmsg/bindings?session_id=${sessionId}`);
  await get(`${C}/extmsg/groups`, `${BASE}/extmsg/groups?${convQuery}`);
  await get(`${C}/extmsg/transcript`, `${BASE}/extmsg/transcript?${convQuery}`);
  await get(`${C}/formulas`, `${BASE}/formulas`);
  await get(`${C}/formulas/feed`, `${BASE}/formulas/feed`);
  await get(`${C}/formulas/{name}`, `${BASE}/formulas/digest?target=mayor`);
  await get(`${C}/formula/{name}`, `${BASE}/formula/digest?target=mayor`);
  await get(`${C}/formulas/{name}/runs`, `${BASE}/formulas/digest/runs`);
  await get(`${C}/workflow/{workflow_id}`, `${BASE}/workflow/${workflowId}`);
  await get(`${C}/orders`, `${BASE}/orders`);
  await get(`${C}/order/{name}`, `${BASE}/order/nightly`);
  await get(`${C}/orders/check`, `${BASE}/orders/check`);
  await get(`${C}/orders/feed`, `${BASE}/orders/feed`);
  await get(`${C}/orders/history`, `${BASE}/orders/history?scoped_name=nightly`);
  await get(`${C}/order/history/{bead_id}`, `${BASE}/order/history/${orderRun}`);
  await get(`${C}/services`, `${BASE}/services`);
  await get(`${C}/service/{name}`, `${BASE}/service/docs`);
  await get(`${C}/maintenance/status`, `${BASE}/maintenance/status`);

  // ── One successful call of each mutation family.
  // Beads.
  await send('PATCH', `${C}/bead/{id}`, `${BASE}/bead/${otherId}`, { description: 'patched' });
  await post(`${C}/bead/{id}/update`, `${BASE}/bead/${otherId}/update`, { priority: 2 });
  await post(`${C}/bead/{id}/assign`, `${BASE}/bead/${otherId}/assign`, { assignee: 'mayor' });
  await post(`${C}/bead/{id}/close`, `${BASE}/bead/${otherId}/close`);
  await post(`${C}/bead/{id}/reopen`, `${BASE}/bead/${otherId}/reopen`);
  // Convoys.
  await post(`${C}/convoy/{id}/add`, `${BASE}/convoy/${convoyId}/add`, { items: [otherId] });
  await post(`${C}/convoy/{id}/remove`, `${BASE}/convoy/${convoyId}/remove`, { items: [otherId] });
  await post(`${C}/convoy/{id}/close`, `${BASE}/convoy/${convoyId}/close`);
  // Mail.
  await post(`${C}/mail/{id}/read`, `${BASE}/mail/${mailId}/read`);
  await post(`${C}/mail/{id}/mark-unread`, `${BASE}/mail/${mailId}/mark-unread`);
  await post(`${C}/mail/{id}/archive`, `${BASE}/mail/${mailId}/archive`);
  await send('DELETE', `${C}/mail/{id}`, `${BASE}/mail/${replied.body.id}`);
  // Sessions.
  await send('PATCH', `${C}/session/{id}`, `${BASE}/session/${sessionId}`, { title: 'renamed' });
  await post(`${C}/session/{id}/rename`, `${BASE}/session/${sessionId}/rename`, { title: 'again' });
  // A message that makes the (fake) agent ask for approval: the session shows a pending interaction,
  // answered through respond.
  await post(
    `${C}/session/{id}/messages`,
    `${BASE}/session/${sessionId}/messages`,
    { message: '/mock approve' },
    202,
  );
  await eventually(
    async () => (await s.call('GET', `${BASE}/session/${sessionId}/pending`)).body?.pending !== undefined,
  );
  await get(`${C}/session/{id}/pending`, `${BASE}/session/${sessionId}/pending`);
  await get(`${C}/pending`, `${BASE}/pending`);
  await post(`${C}/session/{id}/respond`, `${BASE}/session/${sessionId}/respond`, { action: 'approve' }, 202);
  await post(`${C}/session/{id}/submit`, `${BASE}/session/${sessionId}/submit`, { message: 'go' }, 202);
  await post(`${C}/session/{id}/permission-mode`, `${BASE}/session/${sessionId}/permission-mode`, {
    permission_mode: 'default',
  });
  await post(`${C}/service/{name}/restart`, `${BASE}/service/docs/restart`);
  await post(`${C}/session/{id}/suspend`, `${BASE}/session/${sessionId}/suspend`);
  await post(`${C}/session/{id}/wake`, `${BASE}/session/${sessionId}/wake`);
  // Agents, rigs, providers, patches, city.
  await post(`${C}/agents`, `${BASE}/agents`, { name: 'helper', provider: 'mock' }, 201);
  await send('PATCH', `${C}/agent/{base}`, `${BASE}/agent/helper`, { suspended: true });
  await post(`${C}/agent/{base}/{action}`, `${BASE}/agent/helper/resume`);
  await send('DELETE', `${C}/agent/{base}`, `${BASE}/agent/helper`);
  await post(`${C}/rigs`, `${BASE}/rigs`, { name: 'rig2', path: 'rig2' }, 201);
  await send('PATCH', `${C}/rig/{name}`, `${BASE}/rig/rig2`, { prefix: 'r2' });
  await post(`${C}/rig/{name}/{action}`, `${BASE}/rig/rig2/suspend`);
  await send('DELETE', `${C}/rig/{name}`, `${BASE}/rig/rig2`);
  await post(`${C}/providers`, `${BASE}/providers`, { name: 'echoer', command: 'echo' }, 201);
  await send('PATCH', `${C}/provider/{name}`, `${BASE}/provider/echoer`, { display_name: 'Echo' });
  await send('DELETE', `${C}/provider/{name}`, `${BASE}/provider/echoer`);
  await send('PUT', `${C}/patches/agents`, `${BASE}/patches/agents`, {
    name: 'scout',
    dir: 'rig1',
    suspended: false,
  });
  await get(`${C}/patches/agent/{dir}/{base}`, `${BASE}/patches/agent/rig1/scout`);
  await send('DELETE', `${C}/patches/agent/{dir}/{base}`, `${BASE}/patches/agent/rig1/scout`);
  await send('DELETE', `${C}/patches/agent/{base}`, `${BASE}/patches/agent/mayor`);
  await send('PUT', `${C}/patches/rigs`, `${BASE}/patches/rigs`, { name: 'rig1', prefix: 'q1' });
  await send('DELETE', `${C}/patches/rig/{name}`, `${BASE}/patches/rig/rig1`);
  await send('PUT', `${C}/patches/providers`, `${BASE}/patches/providers`, {
    name: 'mock',
    ready_delay_ms: 20,
  });
  await send('DELETE', `${C}/patches/provider/{name}`, `${BASE}/patches/provider/mock`);
  await send('PATCH', `${C}/agent/{dir}/{base}`, `${BASE}/agent/rig1/scout`, { suspended: false });
  await post(`${C}/agent/{dir}/{base}/{action}`, `${BASE}/agent/rig1/scout/resume`);
  await send('PATCH', C, BASE, { suspended: false });
  // Extmsg.
  await post(`${C}/extmsg/transcript/ack`, `${BASE}/extmsg/transcript/ack`, {
    session_id: sessionId,
    conversation: conv,
    sequence: 1,
  });
  await send('DELETE', `${C}/extmsg/participants`, `${BASE}/extmsg/participants`, {
    group_id: group.body.ID,
    handle: 'mayor',
  });
  await post(`${C}/extmsg/unbind`, `${BASE}/extmsg/unbind`, { conversation: conv, session_id: sessionId });
  await send('DELETE', `${C}/extmsg/adapters`, `${BASE}/extmsg/adapters`, {
    provider: 'chat',
    account_id: 'acct',
  });
  // Formulas, sling, workflows, orders.
  await post(`${C}/formulas/{name}/preview`, `${BASE}/formulas/digest/preview`, { target: 'mayor' });
  await post(`${C}/sling`, `${BASE}/sling`, { target: 'mayor', bead: beadId });
  await post(`${C}/order/{name}/disable`, `${BASE}/order/nightly/disable`);
  await post(`${C}/order/{name}/enable`, `${BASE}/order/nightly/enable`);
  await send('DELETE', `${C}/workflow/{workflow_id}`, `${BASE}/workflow/${workflowId}`);
  // Services, maintenance, events.
  await post(`${C}/events/rotate`, `${BASE}/events/rotate`);
  // Last: the things that end what the checks above used.
  await send('DELETE', `${C}/bead/{id}`, `${BASE}/bead/${otherId}`);
  await send('DELETE', `${C}/convoy/{id}`, `${BASE}/convoy/${convoyId}`);
  await post(`${C}/session/{id}/stop`, `${BASE}/session/${sessionId}/stop`);
  await post(`${C}/session/{id}/close`, `${BASE}/session/${sessionId}/close`);
  // The mayor's session (an agent's session takes the session routes too): killed, the reconciler starts
  // it again.
  const mayor = (await s.call('GET', `${BASE}/agent/mayor`)).body.session.name as string;
  await post(`${C}/session/{id}/kill`, `${BASE}/session/${mayor}/kill`);
  await send('DELETE', `${C}/agent/{dir}/{base}`, `${BASE}/agent/rig1/scout`);
  // Store maintenance ([maintenance.dolt] enabled) ran once at start; a second run, waited for, answers
  // 200 with the 202's body (upstream's document declares the 202 only).
  await eventually(async () => (await s.call('GET', `${BASE}/maintenance/status`)).body.history.length > 0);
  await post(`${C}/maintenance/dolt-gc`, `${BASE}/maintenance/dolt-gc?wait=true`, undefined, 200, {
    schemaStatus: 202,
  });

  // ── Errors: upstream's ErrorModel (application/problem+json).
  const problem = async (
    what: string,
    method: string,
    url: string,
    status: number,
    body?: string,
    csrf = method !== 'GET',
  ) => {
    const res = await fetch(`${s.url}${url}`, {
      method,
      headers: {
        ...(csrf ? { 'x-gc-request': '1' } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    t.equal(res.status, status, `${what}: ${status} (${text})`);
    t.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, `${what}: problem+json`);
    const ok = errorModel()(JSON.parse(text));
    t.ok(ok, `${what}: an ErrorModel${ok ? '' : `: ${describe(errorModel().errors)}`}`);
  };
  await problem('an unknown city', 'GET', '/v0/city/nowhere/beads', 404);
  await problem('an unknown bead', 'GET', `${BASE}/bead/${CITY.slice(0, 2)}-999`, 404);
  await problem('an unknown session', 'GET', `${BASE}/session/nobody`, 404);
  await problem('a bead without a title', 'POST', `${BASE}/beads`, 422, JSON.stringify({ priority: 1 }));
  await problem('a bead body of the wrong type', 'POST', `${BASE}/beads`, 422, JSON.stringify({ title: 5 }));
  await problem('a body that is not JSON', 'POST', `${BASE}/beads`, 400, '{"title":');
  await problem('a city create without dir', 'POST', '/v0/city', 422, '{}');
  await problem('a bad blocking index', 'GET', `${BASE}/beads?index=x`, 422);
  await problem('a malformed cursor', 'GET', `${BASE}/beads?cursor=garbage`, 400);
  await problem('reopening an open bead', 'POST', `${BASE}/bead/${beadId}/reopen`, 409);
  await problem(
    'a mutation without X-GC-Request',
    'POST',
    `${BASE}/beads`,
    403,
    JSON.stringify({ title: 'x' }),
    false,
  );

  // The city itself: created above (its 202 checked in startCity), unregistered last.
  const gone = await post(`${C}/unregister`, `${BASE}/unregister`, undefined, 202);
  t.equal(
    (await waitForTerminal(s.log, gone.body.request_id, 20_000)).type,
    'request.result.city.unregister',
  );
  checked.add('POST /v0/city');

  // ── Coverage: every GET of ops.tsv is called or excluded with a reason.
  const gets = OPS.filter((op) => op.startsWith('GET '));
  const missing = gets.filter((op) => !checked.has(op) && !(op in GET_EXCLUSIONS));
  t.same(missing, [], 'every GET of ops.tsv is checked or excluded with a reason');
  t.same(
    Object.keys(GET_EXCLUSIONS).filter((op) => !gets.includes(op) || checked.has(op)),
    [],
    'every exclusion is a GET of ops.tsv that is not checked',
  );
  t.same([...streamed].sort(), [...SSE_OPS].sort(), 'every SSE operation of ops.tsv was opened as a stream');
  t.comment(
    `${checked.size} operations checked of ${OPS.length}; GETs ${gets.length - Object.keys(GET_EXCLUSIONS).length} of ${gets.length}`,
  );
});
