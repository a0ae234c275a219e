import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { GcProcess, isolatedEnv, jsonLines, runGc } from '../cli/helpers/gc.ts';
import { api, type Stack } from './stack.ts';
import { docker } from './engine.ts';
import { until } from './until.ts';

/** What must survive a restart: the cities, the city's beads and its events by seq. */
interface State {
  cities: string[];
  beads: string[];
  seqs: string[];
}

async function pages(base: string, path: string, token?: string): Promise<Array<Record<string, unknown>>> {
  const all: Array<Record<string, unknown>> = [];
  for (let cursor: string | undefined; ;) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await api(
      base,
      'GET',
      `${path}${sep}limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      undefined,
      token,
    );
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    all.push(...(r.body.items as Array<Record<string, unknown>>));
    cursor = r.body.next_cursor as string | undefined;
    if (!cursor) return all;
  }
}

async function state(base: string): Promise<State> {
  const cities = (await pages(base, '/v0/cities')).map((c) => String(c.name)).sort();
  if (!cities.includes('harbor')) return { cities, beads: [], seqs: [] };
  const beads = (await pages(base, '/v0/city/harbor/beads'))
    .map((b) => `${String(b.id)} ${String(b.title)}`)
    .sort();
  const seqs = (await pages(base, '/v0/city/harbor/events'))
    .map((e) => `${String(e.seq)} ${String(e.type)}`)
    .sort((a, b) => parseInt(a) - parseInt(b));
  return { cities, beads, seqs };
}

/** Waits until the supervisor answers again with harbor loaded (its beads readable), then reads the state. */
async function stateAfterStart(stack: Stack, base: string): Promise<State> {
  await stack.healthy('supervisor');
  return until('harbor readable again', async () => {
    const r = await api(base, 'GET', '/v0/city/harbor/beads?limit=1').catch(() => undefined);
    return r?.status === 200 ? state(base) : undefined;
  });
}

/**
 * The default profile as a user runs it: `up -d`, wait for health, create a city with the host's `gc`
 * through the published port while `gc events --follow` prints it, add beads; `restart`, then `down` and
 * `up`: the city, its beads and its event seqs are still there; `down -v`: all gone.
 */
export async function defaultProfile(t: Test, stack: Stack, figures: Record<string, number>): Promise<void> {
  const base = `http://127.0.0.1:${stack.port}`;
  const up = Date.now();
  await stack.run(['up', '-d', '--no-build']);
  await until(
    '/health through the published port',
    async () => {
      const r = await api(base, 'GET', '/health').catch(() => undefined);
      return r?.status === 200 || undefined;
    },
    120_000,
  );
  figures.up_to_health_answered_ms = Date.now() - up;
  await stack.healthy('supervisor');
  figures.up_to_healthy_ms = Date.now() - up;
  t.comment(
    `up → /health answers ${figures.up_to_health_answered_ms} ms, → healthy ${figures.up_to_healthy_ms} ms`,
  );

  for (const service of ['nats', 'supervisor']) {
    const id = (await stack.container(service))!;
    const bindings = JSON.parse(
      await docker(['inspect', '-f', '{{json .HostConfig.PortBindings}}', id]),
    ) as Record<string, Array<{ HostIp: string }> | null> | null;
    const ips = Object.values(bindings ?? {}).flatMap((b) => (b ?? []).map((x) => x.HostIp));
    t.ok(
      ips.every((ip) => ip === '127.0.0.1'),
      `${service} publishes on loopback only (${ips.join(', ') || 'nothing'})`,
    );
  }

  const page = await api(base, 'GET', '/dashboard/');
  t.equal(page.status, 200, 'the dashboard is served to the host');
  t.match(page.body.text, /<html/i, 'as a page (web/ is in the image)');
  const actorsPage = await api(base, 'GET', '/dashboard/actors');
  t.equal(actorsPage.status, 200, 'the live actor view too');

  const gcEnv = isolatedEnv(mkdtempSync(join(tmpdir(), 'gc-compose-home-')), { GC_API: base });
  const follow = new GcProcess(['events', '--follow'], { env: gcEnv });
  t.teardown(() => follow.stop());
  // Started before the first city, as the README has it: it waits and says so (else it would start at
  // whatever is newest when it connects, and might begin after the city's first event).
  await follow.waitForStderr(/no_providers|waiting for a city/, 60_000);
  const created = await runGc(['city', 'create', '/cities/harbor', '--start-command', 'true', '--wait'], {
    env: gcEnv,
    killAfterMs: 120_000,
  });
  t.equal(created.code, 0, `gc city create through the published port (${created.stderr.trim()})`);
  await follow.until(
    () => jsonLines(follow.stdout()).some((e) => e.type === 'request.result.city.create'),
    60_000,
    'gc events --follow to print the create result',
  );
  const printed = jsonLines(follow.stdout());
  const keys = printed.map((e) => `${String(e.city)}#${String(e.seq)} ${String(e.type)}`);
  t.ok(
    printed.some((e) => e.city === 'harbor' && e.seq === 1 && e.type === 'city.created'),
    `the follower printed the city's own events as JSON Lines (${keys.slice(0, 8).join(', ')})`,
  );
  await follow.stop();

  const inspect = await runGc(['inspect'], { env: gcEnv });
  t.equal(inspect.code, 0, `gc inspect from the host (${inspect.stderr.trim()})`);
  t.ok(
    jsonLines(inspect.stdout).some((a) => a.id === 'city:harbor'),
    'the actor view lists the city',
  );

  for (const title of ['first', 'second', 'third']) {
    const r = await api(base, 'POST', '/v0/city/harbor/beads', { title });
    t.equal(r.status, 201, `bead ${title} created`);
  }
  const before = await state(base);
  t.same(before.cities, ['harbor']);
  t.equal(before.beads.length, 3);

  const check = async (what: string) => {
    const after = await stateAfterStart(stack, base);
    t.same(after.cities, before.cities, `${what}: the city is still registered`);
    t.same(after.beads, before.beads, `${what}: its beads are all there, none added`);
    t.same(after.seqs.slice(0, before.seqs.length), before.seqs, `${what}: its events keep their seqs`);
  };
  await stack.run(['restart', '-t', '10']);
  await check('docker compose restart');
  await stack.run(['down', '-t', '10']);
  t.same(
    (await stack.leftovers()).filter((l) => l.startsWith('container')),
    [],
    'down removed the containers',
  );
  await stack.run(['up', '-d', '--no-build']);
  await check('down, then up');

  await stack.run(['down', '-v', '-t', '10']);
  t.same(await stack.leftovers(), [], 'down -v removed containers, network and volumes');
  await stack.run(['up', '-d', '--no-build']);
  await stack.healthy('supervisor');
  const fresh = await until('a supervisor answering the city list', async () => {
    const r = await api(base, 'GET', '/v0/cities').catch(() => undefined);
    return r?.status === 200 ? r : undefined;
  });
  t.same(fresh.body.items, [], 'down -v: the city is gone');
  t.equal((await api(base, 'GET', '/v0/city/harbor/beads')).status, 404, 'and its beads with it');
  await stack.run(['down', '-v', '-t', '10']);
}
