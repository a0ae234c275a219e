import { join } from 'node:path';
import type { Test } from 'tap';
import { until as poll } from '../helpers/until.ts';
import { withNatsCluster, type NatsCluster } from '../helpers/natsCluster.ts';
import {
  startSupervisorProcess,
  type ProcReply,
  type SupervisorProcess,
} from '../helpers/supervisorProcess.ts';

/** The token every supervisor of the test cluster is configured with (and every client call carries). */
export const TOKEN = 'cluster-test-token-7c1f';
/** Lease TTL of the test cluster: short, so failover tests stay fast. */
export const LEASE_TTL_MS = 2000;
export const TICK_MS = 200;

/** One supervisor of the cluster, with calls that carry the token. */
export interface Member {
  readonly proc: SupervisorProcess;
  readonly url: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ProcReply>;
}

export function member(proc: SupervisorProcess): Member {
  return {
    proc,
    get url() {
      return proc.url;
    },
    call: (method, path, body, headers = {}) =>
      proc.call(method, path, body, { authorization: `Bearer ${TOKEN}`, ...headers }),
  };
}

/** The environment of a cluster member on `natsUrl`. */
export const memberEnv = (natsUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  GC_NATS_URL: natsUrl,
  GC_CLUSTER: 'test',
  GC_NATS_REPLICAS: '3',
  GC_LEASE_TTL: `${LEASE_TTL_MS}ms`,
  GC_API_TOKEN: TOKEN,
  ...extra,
});

/** Extra environment of one member, or a function of the NATS cluster giving it (e.g. a proxied URL). */
export type MemberEnv =
  NodeJS.ProcessEnv | ((nats: NatsCluster) => Promise<NodeJS.ProcessEnv> | NodeJS.ProcessEnv);

/**
 * Issue #20's topology with local processes: three clustered nats-server nodes on loopback (random ports,
 * temp stores) and two supervisors in one cluster; `t` tears everything down. Resolves undefined (the
 * test is skipped) without nats-server.
 */
export async function startCluster(
  t: Test,
  env: { a?: MemberEnv; b?: MemberEnv } = {},
): Promise<{ nats: NatsCluster; a: Member; b: Member } | undefined> {
  const nats = await withNatsCluster(t);
  if (!nats) return undefined;
  const opts = async (extra?: MemberEnv) => ({
    tick: `${TICK_MS}ms`,
    env: memberEnv(nats.urls, typeof extra === 'function' ? await extra(nats) : extra),
  });
  const a = member(await startSupervisorProcess(t, await opts(env.a)));
  const b = member(await startSupervisorProcess(t, await opts(env.b)));
  return { nats, a, b };
}

/** Polls `check` every 25 ms until it holds; throws naming `what` after `ms`. */
export const until = <T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  ms = 20_000,
): Promise<T> => poll(what, check, ms, 25);

/** Creates city `name` through `m` in its cities dir and waits until `m` lists it running. */
export async function createRunningCity(m: Member, name: string): Promise<string> {
  const dir = join(m.proc.cities, name);
  const reply = await m.call('POST', '/v0/city', { dir, start_command: 'true' });
  if (reply.status !== 202) throw new Error(`create ${name}: ${reply.status} ${JSON.stringify(reply.body)}`);
  await until(`${name} running`, async () => {
    const list = await m.call('GET', '/v0/cities');
    return (list.body.items as Array<{ name: string; running: boolean }>).some(
      (c) => c.name === name && c.running,
    );
  });
  return dir;
}

/** Every event of a city log as `m` serves it (all pages, internal ones included), oldest first. */
export async function cityLog(
  m: Member,
  city: string,
): Promise<Array<Record<string, unknown> & { seq: number }>> {
  const all: Array<Record<string, unknown> & { seq: number }> = [];
  for (let cursor: string | undefined; ;) {
    const q = `limit=1000&include=internal${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await m.call('GET', `/v0/city/${city}/events?${q}`);
    if (page.status !== 200)
      throw new Error(`events of ${city}: ${page.status} ${JSON.stringify(page.body)}`);
    all.push(...(page.body.items as Array<Record<string, unknown> & { seq: number }>));
    cursor = page.body.next_cursor as string | undefined;
    if (!cursor) return all.sort((x, y) => x.seq - y.seq);
  }
}
