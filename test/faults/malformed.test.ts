import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { inProcessSupervisor, type InProcessSupervisor } from './inProcess.ts';
import { faultSeed, isProblem, rng } from './kit.ts';
import { malformedRequests, type MalformedRequest } from './malformedRequests.ts';
import { operationsOf, type OpenApiDoc } from './openapiOps.ts';

/**
 * Fault: 10,000 malformed requests generated from the OpenAPI document the server itself serves (wrong
 * types, missing and unknown fields, bodies that are not objects or not JSON, huge bodies, invalid UTF-8,
 * path traversal in names and dirs, header injection, bad query values, unknown routes, missing
 * X-GC-Request), injected into an app over a real supervisor that holds cities, beads, mail and a convoy.
 * Every answer must be a 4xx Problem Details, nothing may crash or hang, and no state may change.
 * `inject` skips Node's HTTP parser: the header-injection and huge-body cases also go over a real socket
 * (malformedSocket.test.ts).
 */
const COUNT = Number(process.env.GC_FAULT_MALFORMED ?? 10_000);
const CONCURRENCY = 16;
const TIMEOUT_MS = 5000;

interface State {
  heads: Record<string, number>;
  cities: unknown;
  registry: string;
  home: string[];
}

async function stateOf(sup: InProcessSupervisor): Promise<State> {
  const heads: Record<string, number> = {};
  for (const [name, journal] of sup.supervisor.live.logs()) heads[name] = await journal.head();
  const list = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() && e.name !== '.gc'
        ? [e.name, ...list(join(dir, e.name)).map((n) => `${e.name}/${n}`)]
        : [e.name],
    );
  return {
    heads,
    cities: (await sup.call('GET', '/v0/cities')).body,
    registry: readFileSync(join(sup.gcHome, 'cities.toml'), 'utf8'),
    home: list(sup.home).sort(),
  };
}

interface Answer {
  req: MalformedRequest;
  status: number;
  body: unknown;
  contentType: string | undefined;
  requestId: unknown;
  error?: string;
}

async function send(sup: InProcessSupervisor, req: MalformedRequest): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  try {
    const res = await Promise.race([
      sup.app.inject({
        method: req.method as 'GET',
        url: req.url,
        headers: req.headers,
        ...(req.payload === undefined ? {} : { payload: req.payload }),
        // A stream that opened by mistake answers headers and never ends: take the headers only.
        ...(req.stream ? { payloadAsStream: true } : {}),
      }),
      timeout,
    ]);
    let text = '';
    if (req.stream && res.statusCode === 200) res.stream().destroy();
    else text = req.stream ? await new Response(res.stream()).text() : res.body;
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: reported as such.
    }
    const type = res.headers['content-type'];
    return {
      req,
      status: res.statusCode,
      body,
      contentType: typeof type === 'string' ? type : undefined,
      requestId: res.headers['x-gc-request-id'],
    };
  } catch (err) {
    return {
      req,
      status: 0,
      body: undefined,
      contentType: undefined,
      requestId: undefined,
      error: String(err),
    };
  } finally {
    clearTimeout(timer);
  }
}

t.test(
  '10,000 malformed requests from the OpenAPI document: 4xx problems only, no state change',
  async (t) => {
    const seed = faultSeed(t);
    const root = mkdtempSync(join(tmpdir(), 'gc-malformed-'));
    const sup = await inProcessSupervisor(root);
    t.teardown(async () => {
      await sup.close();
      rmSync(root, { recursive: true, force: true });
    });
    await sup.createCity('alpha');
    await sup.createCity('beta');
    const bead = (await sup.call('POST', '/v0/city/alpha/beads', { title: 'first' })).body.id as string;
    const other = (await sup.call('POST', '/v0/city/alpha/beads', { title: 'second' })).body.id as string;
    const mail = (await sup.call('POST', '/v0/city/alpha/mail', { to: 'mayor', subject: 'hi' })).body
      .id as string;
    const convoy = (await sup.call('POST', '/v0/city/alpha/convoys', { title: 'c' })).body.id as string;
    await sup.call('POST', '/v0/city/beta/events', { type: 'seed.event', actor: 'fuzz' });
    await sup.supervisor.settled();

    const doc = (await sup.call('GET', '/openapi.json')).body as OpenApiDoc;
    const ops = operationsOf(doc);
    const values = { cityName: 'alpha', id: bead, dependsOnId: other, rootID: bead };
    const requests = malformedRequests({ doc, ops, values, scratch: sup.home }, rng(seed), COUNT);
    // Mail and convoy routes name their own ids.
    for (const req of requests) {
      if (req.url.includes('/mail/')) req.url = req.url.replace(`/mail/${bead}`, `/mail/${mail}`);
      if (req.url.includes('/convoy/')) req.url = req.url.replace(`/convoy/${bead}`, `/convoy/${convoy}`);
    }
    const categories = new Map<string, number>();
    for (const r of requests) categories.set(r.category, (categories.get(r.category) ?? 0) + 1);
    t.comment(`${ops.length} operations in the document; ${requests.length} requests:`);
    for (const [c, n] of [...categories].sort()) t.comment(`  ${c}: ${n}`);

    const before = await stateOf(sup);
    const started = Date.now();
    const answers: Answer[] = [];
    for (let i = 0; i < requests.length; i += CONCURRENCY) {
      answers.push(...(await Promise.all(requests.slice(i, i + CONCURRENCY).map((r) => send(sup, r)))));
    }
    t.comment(`sent in ${Date.now() - started} ms`);
    await sup.supervisor.settled();

    const show = (a: Answer): string =>
      `${a.req.category}: ${a.req.method} ${a.req.url.slice(0, 120)} → ${a.error ?? a.status} ${JSON.stringify(a.body)?.slice(0, 160)}`;
    const statuses = new Map<number, number>();
    for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    t.comment(
      `statuses: ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(', ')}`,
    );
    t.same(
      answers
        .filter((a) => a.error !== undefined)
        .map(show)
        .slice(0, 20),
      [],
      'every request was answered in time',
    );
    t.same(
      answers
        .filter((a) => a.status >= 500)
        .map(show)
        .slice(0, 20),
      [],
      'never a 5xx',
    );
    t.same(
      answers
        .filter((a) => a.status > 0 && a.status < 400)
        .map(show)
        .slice(0, 20),
      [],
      'never a success: each was refused',
    );
    t.same(
      answers
        .filter((a) => a.status >= 400 && !isProblem(a.status, a.contentType, a.body))
        .map(show)
        .slice(0, 20),
      [],
      'always a Problem Details body (application/problem+json with status, title, detail)',
    );
    t.same(
      answers
        .filter((a) => a.status > 0 && typeof a.requestId !== 'string')
        .map(show)
        .slice(0, 5),
      [],
      'every answer carries X-GC-Request-Id',
    );
    t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was not polluted');
    const after = await stateOf(sup);
    t.same(after.heads, before.heads, 'no journal moved (heads of every log unchanged)');
    t.same(after.cities, before.cities, 'GET /v0/cities is unchanged');
    t.equal(after.registry, before.registry, 'the registry file is unchanged');
    t.same(after.home, before.home, 'no file or directory appeared under $HOME');
    t.equal((await sup.call('GET', '/health')).status, 200, 'the supervisor still answers');
  },
);
