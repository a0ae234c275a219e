import { createServer, connect, type Socket } from 'node:net';
import type { Test } from 'tap';

/** A loopback TCP relay to one target: cutting it is a network partition of whoever connects through it. */
export interface TcpProxy {
  /** `nats://127.0.0.1:<port>` (or any scheme: only the port matters). */
  readonly port: number;
  /** Drops every relayed connection and refuses new ones until `heal()`. */
  cut(): void;
  /** Accepts and relays again. */
  heal(): void;
}

/**
 * Relays 127.0.0.1:<random port> to `targetPort`; `t` closes it. While cut, connections are destroyed at
 * once (as a partition looks to a client: the peer is gone, reconnects fail).
 */
export async function startTcpProxy(t: Test, targetPort: number): Promise<TcpProxy> {
  const live = new Set<Socket>();
  let cut = false;
  const server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect({ host: '127.0.0.1', port: targetPort });
    live.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      live.delete(client);
      live.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const s of live) s.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    port,
    cut: () => {
      cut = true;
      for (const s of live) s.destroy();
      live.clear();
    },
    heal: () => {
      cut = false;
    },
  };
}
