import t from 'tap';
import {
  cityLog,
  createRunningCity,
  LEASE_TTL_MS,
  startCluster,
  TICK_MS,
  until,
  type Member,
} from './clusterKit.ts';

/**
 * Issue #20 faults: the owner of a city is SIGKILLed under write load, then one NATS node of three is
 * killed. Another supervisor must own the city within the lease TTL plus one tick (and a second of
 * scheduling slack on a loaded two-core machine), no acknowledged write may be lost or doubled, and
 * every async request the dead owner accepted must still get exactly one terminal event.
 */
t.setTimeout(5 * 60_000);

/** Writers: each write carries a unique subject, is sent once (no retry: an unanswered one stays unknown). */
class Load {
  readonly acked = new Set<string>();
  readonly refused = new Map<number, number>();
  #n = 0;
  #running = true;
  #workers: Promise<void>[] = [];
  /** When B first acknowledged a write as the owner itself (no forwarding header). */
  ownedByBAt: number | undefined;

  constructor(
    private readonly targets: () => Member[],
    private readonly b: Member,
  ) {}

  start(workers: number): void {
    for (let w = 0; w < workers; w++) this.#workers.push(this.#work(w));
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#workers);
  }

  async #work(w: number): Promise<void> {
    while (this.#running) {
      const targets = this.targets();
      const target = targets[this.#n % targets.length]!;
      const id = `w${w}-${++this.#n}`;
      try {
        const r = await target.call('POST', '/v0/city/harbor/events', {
          type: 'custom.load',
          actor: 'load',
          subject: id,
        });
        if (r.status === 201) {
          this.acked.add(id);
          if (target === this.b && !r.headers.get('gc-city-owner') && this.ownedByBAt === undefined)
            this.ownedByBAt = Date.now();
        } else {
          this.refused.set(r.status, (this.refused.get(r.status) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, 20));
        }
      } catch {
        this.refused.set(0, (this.refused.get(0) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }
}

t.test(
  'owner SIGKILLed under load, then a NATS node killed: failover in time, nothing lost or doubled',
  async (t) => {
    const cluster = await startCluster(t);
    if (!cluster) return;
    const { nats, a, b } = cluster;
    await createRunningCity(a, 'harbor');
    await until('B to follow harbor', async () => {
      const r = await b.call('GET', '/v0/cities');
      return (
        (r.body.items as Array<{ name: string; running: boolean }>).some(
          (c) => c.name === 'harbor' && c.running,
        ) || undefined
      );
    });

    let alive: Member[] = [a, b];
    const load = new Load(() => alive, b);
    load.start(4);
    await until('writes acknowledged before the kill', async () => load.acked.size >= 40 || undefined);

    // Async requests the owner accepts just before it dies: each must end with exactly one terminal event.
    const accepted: string[] = [];
    for (const name of ['late-1', 'late-2']) {
      // A loaded owner may refuse a create with a 503 (a step past its deadline): a client retries that.
      for (let attempt = 1; attempt <= 5; attempt++) {
        const r = await a.call('POST', '/v0/city', {
          dir: `${a.proc.cities}/${name}`,
          start_command: 'true',
        });
        if (r.status === 202) {
          accepted.push((r.body as { request_id: string }).request_id);
          break;
        }
        t.comment(`create ${name} (attempt ${attempt}): ${r.status} ${JSON.stringify(r.body)}`);
        if (r.status !== 503) break;
      }
    }
    t.equal(accepted.length, 2, 'the owner accepted two creates just before the kill');

    const killedAt = Date.now();
    await a.proc.stop('SIGKILL');
    alive = [b];
    const writableAt = await until('B to accept writes as owner', async () => load.ownedByBAt, 30_000);
    const fence = (await cityLog(b, 'harbor')).find((e) => e.type === 'city.owner_changed');
    const ownedMs = Date.parse(String(fence?.ts)) - killedAt;
    t.comment(
      `failover: B fenced the log ${ownedMs} ms and accepted its first write as owner ${writableAt - killedAt} ms ` +
        `after the SIGKILL (TTL ${LEASE_TTL_MS} ms, tick ${TICK_MS} ms; the city restarts in between)`,
    );
    // Wall clocks of one host. The figure itself is measured by bench/scaleout.ts; this bound only catches
    // an adoption that waits out a second lease period (a loaded two-core machine delays timers by a second).
    t.ok(
      ownedMs <= 2 * LEASE_TTL_MS,
      `another supervisor owns the city before a second TTL passes (${ownedMs} ms)`,
    );
    t.ok(writableAt - killedAt <= 2 * LEASE_TTL_MS + 1000, 'and takes writes soon after');

    // One NATS node of three goes; writes go on against the other two (R3 streams and buckets).
    const before = load.acked.size;
    await nats.nodes[0]!.stop();
    await until(
      'writes acknowledged with a node down',
      async () => load.acked.size >= before + 40 || undefined,
      30_000,
    );
    await load.stop();
    t.comment(
      `writes acknowledged ${load.acked.size}; refused by status ${JSON.stringify([...load.refused])}`,
    );

    const log = await cityLog(b, 'harbor');
    const seen = new Map<string, number>();
    for (const e of log)
      if (e.type === 'custom.load') seen.set(String(e.subject), (seen.get(String(e.subject)) ?? 0) + 1);
    t.same(
      [...load.acked].filter((id) => !seen.has(id)),
      [],
      'no acknowledged write is lost',
    );
    t.same(
      [...seen].filter(([, n]) => n > 1),
      [],
      'no write is stored twice',
    );
    t.same(
      log.map((e) => e.seq),
      log.map((_, i) => i + 1),
      'the city log is gap-free',
    );
    const owners = log
      .filter((e) => e.type === 'city.owner_changed')
      .map((e) => (e.payload as { owner: string }).owner);
    t.equal(owners.length, 1, `the new owner fenced the log once (${JSON.stringify(owners)})`);

    // The requests the dead owner accepted are completed by the adopter.
    const terminals = await until(
      'both requests to terminate',
      async () => {
        const found: Record<string, number> = {};
        for (const type of ['request.result.city.create', 'request.failed']) {
          const r = await b.call('GET', `/v0/events?type=${type}&limit=1000`);
          for (const e of r.body.items as Array<{ payload: { request_id: string } }>)
            if (accepted.includes(e.payload.request_id))
              found[e.payload.request_id] = (found[e.payload.request_id] ?? 0) + 1;
        }
        return Object.keys(found).length === accepted.length ? found : undefined;
      },
      30_000,
    );
    t.same(
      Object.values(terminals),
      accepted.map(() => 1),
      'every accepted request has exactly one terminal event',
    );
  },
);
