import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { writeToolShims } from '../../actors/sessions/sessionEnv.ts';
import { ROOT } from '../cli/helpers/gc.ts';
import { nodeChild } from '../helpers/childEnv.ts';
import { eventually } from '../helpers/supervisor.ts';
import { workCity } from './helpers.ts';

/**
 * The mock worker after a lost claim: its work query keeps showing it a bead someone else holds, so every
 * claim of it fails; the worker then takes the other ready beads routed to its template (bd ready, the one
 * at its slot), works them through, and leaves the held one alone. Without that it would only ever retry
 * the taken bead.
 */

t.setTimeout(180_000);

t.test('a worker that loses a claim takes another routed bead instead', async (t) => {
  const city = await workCity(t);
  const ids: string[] = [];
  for (const title of ['held', 'two', 'three']) {
    const r = await city.bd(['create', title, '--metadata', '{"gc.routed_to":"polecat"}', '--silent']);
    ids.push(r.stdout.trim());
  }
  const [held, ...free] = ids as [string, ...string[]];
  t.equal((await city.bd(['update', held, '--claim'], { BEADS_ACTOR: 'someone-else' })).code, 0);
  // The pool's query pinned to the held bead: every hook shows the worker that one first.
  appendFileSync(
    join(city.dir, 'city.toml'),
    `\n[[agent]]\nname = "polecat"\nprovider = "mock"\nwork_query = "printf '[{\\"id\\":\\"${held}\\",\\"title\\":\\"held\\"}]'"\n`,
  );
  await eventually(async () => {
    const a = await city.sup.call('GET', `/v0/city/${city.name}/agent/polecat?extras=true`);
    return a.status === 200 && typeof (a.body as { work_query?: unknown }).work_query === 'string';
  }, 30_000);

  const tmp = mkdtempSync(join(tmpdir(), 'gc-worker-lost-'));
  t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
  const shims = writeToolShims(join(tmp, 'bin'))!;
  const env = {
    ...city.env,
    PATH: `${shims}:${process.env.PATH}`,
    GC_TEMPLATE: 'polecat',
    GC_SESSION_ID: 'worker-7',
    GC_SESSION_NAME: 'worker-7',
    GC_ALIAS: 'worker-7',
    GC_AGENT: 'worker-7',
    BEADS_ACTOR: 'worker-7',
    GC_SESSION_ORIGIN: 'ephemeral',
    GC_MOCK_POLL_MS: '200',
  };
  const child = spawn(...nodeChild([join(ROOT, 'bin', 'gc-mock-agent.mjs'), '--worker', '--log-dir', tmp]), {
    cwd: tmp,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  await eventually(async () => (out.match(/worked \S+/g) ?? []).length === 2, 60_000).catch((e: Error) => {
    throw new Error(`${e.message}; worker stdout:\n${out}`);
  });
  t.same(
    (out.match(/worked (\S+)/g) ?? []).map((w) => w.slice('worked '.length)).sort(),
    [...free].sort(),
    'it worked the two free beads',
  );
  for (const id of free) {
    const b = (await city.sup.call('GET', `/v0/city/${city.name}/bead/${id}`)).body;
    t.match(b, { status: 'closed', assignee: 'worker-7' }, `${id} closed by the worker`);
  }
  const h = (await city.sup.call('GET', `/v0/city/${city.name}/bead/${held}`)).body;
  t.match(h, { status: 'in_progress', assignee: 'someone-else' }, 'the held bead stays with its holder');
  const rejected = (await city.sup.call('GET', `/v0/city/${city.name}/events?type=bead.claim_rejected`))
    .body as { items: unknown[] };
  t.ok(rejected.items.length >= 1, 'its claims of the held bead were refused (bead.claim_rejected)');
});
