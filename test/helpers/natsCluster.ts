import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { Test } from 'tap';
import { findNatsServer, freePort, startNatsServer, type NatsServerProcess } from './natsServer.ts';

/** Three `nats-server -js` nodes clustered on loopback, each with its own port and temp store. */
export interface NatsCluster {
  readonly nodes: readonly NatsServerProcess[];
  /** Every node's client URL, comma-separated (what a supervisor's GC_NATS_URL takes). */
  readonly urls: string;
}

/**
 * Starts a three-node JetStream cluster on random loopback ports (never a system server) and resolves
 * once JetStream answers with a meta leader; `t` destroys the nodes and their stores. When nats-server
 * is missing the test is planned as skipped and this resolves undefined (as `withJetStream`).
 * Throws when the cluster does not form within 30 s.
 */
export async function withNatsCluster(t: Test, name = 'gc'): Promise<NatsCluster | undefined> {
  const bin = findNatsServer();
  if (!bin) {
    const reason = 'nats-server not found on PATH (install it, or set NATS_SERVER_BIN)';
    if (process.env.CI) throw new Error(`${reason}; CI must run the NATS tests`);
    t.plan(0, reason);
    return undefined;
  }
  const routes = await Promise.all([freePort(), freePort(), freePort()]);
  const routeUrls = routes.map((p) => `nats://127.0.0.1:${p}`).join(',');
  const nodes = await Promise.all(
    routes.map((port, i) =>
      startNatsServer(bin, [
        '-n',
        `${name}-n${i + 1}`,
        '--cluster_name',
        name,
        '--cluster',
        `nats://127.0.0.1:${port}`,
        '--routes',
        routeUrls,
        // Clients use only the URLs they are given: a supervisor pointed at one node (through a relay the
        // partition test cuts) must not find its way round the cut to the other nodes.
        '--no_advertise=true',
      ]),
    ),
  );
  t.teardown(() => Promise.all(nodes.map((n) => n.destroy())));
  const urls = nodes.map((n) => n.url).join(',');
  await jetStreamReady(urls);
  return { nodes, urls };
}

/** Resolves once the cluster's JetStream answers (a meta leader is elected); throws after `ms`. */
export async function jetStreamReady(urls: string, ms = 30_000): Promise<void> {
  const nc = await connect({ servers: urls.split(','), maxReconnectAttempts: -1 });
  try {
    const deadline = Date.now() + ms;
    for (;;) {
      try {
        const jsm = await jetstreamManager(nc, { timeout: 2000 });
        const info = await jsm.getAccountInfo();
        if (info) return;
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(`JetStream cluster not ready within ${ms} ms`, { cause: err });
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  } finally {
    await nc.close();
  }
}
