import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { isolatedEnv, runGc } from '../cli/helpers/gc.ts';
import { docker } from './engine.ts';
import { api, type Stack } from './stack.ts';
import { until } from './until.ts';

/** docker-compose.yml's GC_LEASE_TTL for the cluster's supervisors. */
const LEASE_TTL_MS = 10_000;

/** Bead creates through the gateway, each with a unique title, sent once: an unanswered one stays unknown. */
class Writer {
  readonly acked = new Set<string>();
  readonly refused = new Map<number, number>();
  #n = 0;
  #running = true;
  #loops: Promise<void>[] = [];

  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}

  start(loops: number): void {
    for (let i = 0; i < loops; i++) this.#loops.push(this.#loop(i));
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
  }

  async #loop(i: number): Promise<void> {
    while (this.#running) {
      const title = `load-${i}-${++this.#n}`;
      const r = await api(this.base, 'POST', '/v0/city/harbor/beads', { title }, this.token).catch(
        () => undefined,
      );
      if (r?.status === 201) this.acked.add(title);
      else {
        this.refused.set(r?.status ?? 0, (this.refused.get(r?.status ?? 0) ?? 0) + 1);
        await new Promise((res) => setTimeout(res, 50));
      }
    }
  }
}

/** The city's owner as its log says: the URL of the newest `city.owner_changed`, with when it was written. */
async function ownerChanges(base: string, token: string): Promise<Array<{ url: string; ts: number }>> {
  const out: Array<{ url: string; ts: number }> = [];
  for (let cursor: string | undefined; ;) {
    const q = `limit=500&include=internal${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await api(base, 'GET', `/v0/city/harbor/events?${q}`, undefined, token);
    if (r.status !== 200) throw new Error(`events: ${r.status} ${JSON.stringify(r.body)}`);
    for (const e of r.body.items as Array<{ type: string; ts: string; payload?: { url?: string } }>)
      if (e.type === 'city.owner_changed') out.push({ url: String(e.payload?.url), ts: Date.parse(e.ts) });
    cursor = r.body.next_cursor as string | undefined;
    if (!cursor) return out;
  }
}

/**
 * The owner through the gateway: nginx alternates between the supervisors, and the one that does not own
 * the city forwards a city request and names the owner in `GC-City-Owner`.
 */
async function ownerByForwarding(base: string, token: string): Promise<string> {
  return until('a forwarded answer naming the owner', async () => {
    const r = await api(base, 'GET', '/v0/city/harbor/beads?limit=1', undefined, token).catch(
      () => undefined,
    );
    return r?.headers.get('gc-city-owner') ?? undefined;
  });
}

/**
 * The cluster profile: three NATS nodes, two supervisors, nginx in front. A city is created through nginx,
 * its owner's container is killed (SIGKILL) under a writer, the other supervisor must own the city within
 * the lease TTL + 1 s, and every bead the writer got a 201 for is there exactly once.
 */
export async function clusterProfile(t: Test, stack: Stack, figures: Record<string, number>): Promise<void> {
  const base = `http://127.0.0.1:${stack.clusterPort}`;
  const up = Date.now();
  await stack.run(['--profile', 'cluster', 'up', '-d', '--no-build', 'gateway']);
  await stack.healthy('sup-1');
  await stack.healthy('sup-2');
  await until(
    'the gateway to answer',
    async () => {
      const r = await api(base, 'GET', '/health').catch(() => undefined);
      return r?.status === 200 || undefined;
    },
    60_000,
  );
  figures.cluster_up_to_gateway_ms = Date.now() - up;
  const gatewayId = (await stack.container('gateway'))!;
  const bindings = await docker(['inspect', '-f', '{{json .HostConfig.PortBindings}}', gatewayId]);
  t.match(bindings, /"HostIp":"127\.0\.0\.1"/, 'the gateway publishes on loopback');
  t.notMatch(bindings, /"HostIp":"(?!127\.0\.0\.1")/, 'and nowhere else');
  t.equal((await api(base, 'GET', '/v0/cities')).status, 401, 'the cluster wants the token');

  const gcEnv = isolatedEnv(mkdtempSync(join(tmpdir(), 'gc-compose-home-')), {
    GC_API: base,
    GC_API_TOKEN: stack.token,
  });
  const created = await runGc(['city', 'create', '/cities/harbor', '--start-command', 'true', '--wait'], {
    env: gcEnv,
    killAfterMs: 120_000,
  });
  t.equal(created.code, 0, `gc city create through nginx (${created.stderr.trim()})`);
  const owner = await ownerByForwarding(base, stack.token);
  const other = owner.includes('sup-1') ? 'sup-2' : 'sup-1';
  const ownerService = owner.includes('sup-1') ? 'sup-1' : 'sup-2';
  t.comment(`harbor is owned by ${owner}`);

  const writer = new Writer(base, stack.token);
  writer.start(2);
  t.teardown(() => writer.stop());
  await until('writes acknowledged before the kill', async () => writer.acked.size >= 20 || undefined);
  const ownerId = (await stack.container(ownerService))!;
  await docker(['kill', ownerId]);
  const killedAt = Date.parse((await docker(['inspect', '-f', '{{.State.FinishedAt}}', ownerId])).trim());
  const taken = await until(
    `${other} to own harbor`,
    async () =>
      (await ownerChanges(base, stack.token).catch(() => [])).find(
        (c) => c.url.includes(other) && c.ts >= killedAt,
      ),
    60_000,
  );
  figures.cluster_failover_ms = taken.ts - killedAt;
  t.comment(`${other} fenced the log ${figures.cluster_failover_ms} ms after the owner's container died`);
  t.ok(
    figures.cluster_failover_ms <= LEASE_TTL_MS + 1000,
    `the other supervisor owns the city within the lease TTL + 1 s (${figures.cluster_failover_ms} ms)`,
  );
  const afterKill = writer.acked.size;
  await until(
    'writes acknowledged by the new owner',
    async () => writer.acked.size >= afterKill + 20 || undefined,
  );
  await writer.stop();
  t.comment(
    `beads acknowledged ${writer.acked.size}; refused by status ${JSON.stringify([...writer.refused])}`,
  );

  const titles = new Map<string, number>();
  for (let cursor: string | undefined; ;) {
    const q = `limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await api(base, 'GET', `/v0/city/harbor/beads?${q}`, undefined, stack.token);
    t.equal(r.status, 200);
    for (const b of r.body.items as Array<{ title: string }>)
      titles.set(b.title, (titles.get(b.title) ?? 0) + 1);
    cursor = r.body.next_cursor as string | undefined;
    if (!cursor) break;
  }
  t.same(
    [...writer.acked].filter((title) => !titles.has(title)),
    [],
    'no acknowledged bead is lost',
  );
  t.same(
    [...titles].filter(([, n]) => n > 1),
    [],
    'no bead is doubled',
  );
  await stack.run(['--profile', 'cluster', 'down', '-v', '-t', '5']);
  t.same(await stack.leftovers(), [], 'down -v removed the cluster');
}
