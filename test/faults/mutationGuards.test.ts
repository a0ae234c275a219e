import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { runSupervisor } from '../../http/main.ts';
import { fakeHost } from '../helpers/supervisor.ts';
import { inProcessSupervisor, type InProcessSupervisor } from './inProcess.ts';
import { isProblem } from './kit.ts';
import { fillPath, operationsOf, sampleOf, type OpenApiDoc, type Operation } from './openapiOps.ts';

/**
 * The mutation guards, over every mutation route the served OpenAPI document lists (so a new route is
 * covered the day it is added): without `X-GC-Request` each answers 403 `csrf:`, and on a supervisor bound
 * to a non-loopback address each answers 403 `read_only:`, even with a valid body that would otherwise be
 * accepted. Path parameters are filled with things that exist, so only the guard stands in the way.
 */
const CSRF = 'csrf: X-GC-Request header required on mutation endpoints';

interface Seeded {
  sup: InProcessSupervisor;
  values: Record<string, string>;
  mail: string;
  convoy: string;
}

async function seeded(root: string): Promise<Seeded> {
  const sup = await inProcessSupervisor(root);
  await sup.createCity('alpha');
  const bead = (await sup.call('POST', '/v0/city/alpha/beads', { title: 'first' })).body.id as string;
  const other = (await sup.call('POST', '/v0/city/alpha/beads', { title: 'second' })).body.id as string;
  const mail = (await sup.call('POST', '/v0/city/alpha/mail', { to: 'mayor', subject: 'hi' })).body
    .id as string;
  const convoy = (await sup.call('POST', '/v0/city/alpha/convoys', { title: 'c' })).body.id as string;
  return { sup, values: { cityName: 'alpha', id: bead, dependsOnId: other, rootID: bead }, mail, convoy };
}

/** A request for `op` that only its guard should refuse: real path values, a schema-valid body. */
function plausible(doc: OpenApiDoc, op: Operation, s: Seeded): { url: string; body: string | undefined } {
  let url = fillPath(op.path, s.values);
  url = url
    .replace(`/mail/${s.values.id}`, `/mail/${s.mail}`)
    .replace(`/convoy/${s.values.id}`, `/convoy/${s.convoy}`);
  if (op.id === 'post-v0-city')
    return { url, body: JSON.stringify({ dir: 'guarded', start_command: 'true' }) };
  return { url, body: op.body ? JSON.stringify(sampleOf(doc, op.body)) : undefined };
}

async function heads(sup: InProcessSupervisor): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, journal] of sup.supervisor.live.logs()) out[name] = await journal.head();
  return out;
}

t.test('every mutation route in the OpenAPI document refuses a request without X-GC-Request', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gc-csrf-'));
  const s = await seeded(root);
  t.teardown(async () => {
    await s.sup.close();
    rmSync(root, { recursive: true, force: true });
  });
  const doc = (await s.sup.call('GET', '/openapi.json')).body as OpenApiDoc;
  const mutations = operationsOf(doc).filter((op) => op.mutation);
  t.ok(mutations.length >= 20, `the document lists ${mutations.length} mutation routes`);
  const before = await heads(s.sup);
  const wrong: string[] = [];
  for (const op of mutations) {
    const { url, body } = plausible(doc, op, s);
    for (const marker of [undefined, '', '   ']) {
      const res = await s.sup.app.inject({
        method: op.method as 'POST',
        url,
        headers: {
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(marker === undefined ? {} : { 'x-gc-request': marker }),
        },
        ...(body ? { payload: body } : {}),
      });
      const problem = res.json<{ detail?: string }>();
      if (
        res.statusCode !== 403 ||
        problem.detail !== CSRF ||
        !isProblem(403, res.headers['content-type'] as string, problem)
      ) {
        wrong.push(
          `${op.method} ${op.path} (X-GC-Request ${JSON.stringify(marker)}): ${res.statusCode} ${res.body}`,
        );
      }
    }
  }
  t.comment(`checked: ${mutations.map((op) => `${op.method} ${op.path}`).join(', ')}`);
  t.same(wrong, [], `each of ${mutations.length} routes answers 403 "${CSRF}" (header absent, empty, blank)`);
  t.same(await heads(s.sup), before, 'no log moved');

  // Control: the same requests with the header get past the guard (so it was the guard that refused them).
  let accepted = 0;
  const forbidden: string[] = [];
  const last = (op: Operation): number => (/\/(stop|unregister)$/.test(op.path) ? 1 : 0);
  for (const op of [...mutations].sort((a, b) => last(a) - last(b))) {
    const { url, body } = plausible(doc, op, s);
    const res = await s.sup.call(op.method, url, body === undefined ? undefined : JSON.parse(body));
    if (res.status < 300) accepted++;
    if (res.status === 403) forbidden.push(`${op.method} ${op.path}`);
  }
  t.comment(`control: with X-GC-Request, ${accepted} of ${mutations.length} of these requests succeed`);
  t.same(forbidden, [], 'with X-GC-Request none of them is refused 403: the guard alone refused them');
});

t.test('a supervisor bound to a non-loopback address is read-only on every mutation route', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gc-readonly-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  // State first, through a loopback supervisor; then the same home served on 0.0.0.0.
  const s = await seeded(root);
  const doc = (await s.sup.call('GET', '/openapi.json')).body as OpenApiDoc;
  const mutations = operationsOf(doc).filter((op) => op.mutation);
  const requests = mutations.map((op) => ({ op, ...plausible(doc, op, s) }));
  await s.sup.close();

  mkdirSync(join(root, 'home'), { recursive: true });
  const config = loadConfig({
    GC_HOME: join(root, 'gchome'),
    GC_BIND: '0.0.0.0',
    GC_PORT: '0',
    GC_TICK: '200ms',
  });
  const running = await runSupervisor(config, { host: fakeHost(join(root, 'home')) });
  t.teardown(() => running.close());
  t.comment(`fault: the supervisor listens on 0.0.0.0 (${running.url}) without allow_mutations`);
  const deadline = Date.now() + 10_000;
  while (!running.supervisor.live.get('alpha')?.running && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  await running.supervisor.settled();
  const headsBefore: Record<string, number> = {};
  for (const [name, journal] of running.supervisor.live.logs()) headsBefore[name] = await journal.head();

  const wrong: string[] = [];
  for (const { op, url, body } of requests) {
    const res = await fetch(running.url + url, {
      method: op.method,
      headers: { 'x-gc-request': 'yes', ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body } : {}),
    });
    const text = await res.text();
    const problem = JSON.parse(text) as { detail?: string };
    if (
      res.status !== 403 ||
      !problem.detail?.startsWith('read_only:') ||
      !isProblem(403, res.headers.get('content-type'), problem)
    ) {
      wrong.push(`${op.method} ${op.path}: ${res.status} ${text.slice(0, 200)}`);
    }
  }
  t.same(wrong, [], `each of ${mutations.length} mutation routes answers 403 read_only, over a real socket`);
  const reads = await fetch(`${running.url}/v0/cities`);
  t.equal(reads.status, 200, 'reads still work');
  await running.supervisor.settled();
  const headsAfter: Record<string, number> = {};
  for (const [name, journal] of running.supervisor.live.logs()) headsAfter[name] = await journal.head();
  t.same(headsAfter, headsBefore, 'no log moved');
});
