import type { Test } from 'tap';
import { findNatsServer, startNatsServer, type NatsServerProcess } from './natsServer.ts';

/**
 * The server a test runs against: `stop`/`start`/`restart` keep the port and the store directory;
 * `pause`/`resume` freeze and thaw it (SIGSTOP/SIGCONT).
 */
export type JetStreamServer = Omit<NatsServerProcess, 'destroy'>;

/**
 * Starts a private `nats-server -js` for test `t` on a random loopback port with a temp store dir, and
 * registers `t.teardown` to kill it and delete the dir. Never touches a system server.
 *
 * When `nats-server` is not on PATH: under CI (`$CI` set) this throws, because CI must never skip the
 * NATS tests silently; elsewhere it plans `t` as skipped with the reason and resolves `undefined`, so
 * call it before any assertion and return when it gives nothing.
 *
 * @example
 * const nats = await withJetStream(t);
 * if (!nats) return;
 * const backend = new JetStreamJournalBackend({ servers: nats.url });
 */
export async function withJetStream(t: Test): Promise<JetStreamServer | undefined> {
  const bin = findNatsServer();
  if (!bin) {
    const reason = 'nats-server not found on PATH (install it, or set NATS_SERVER_BIN)';
    if (process.env.CI) throw new Error(`${reason}; CI must run the NATS tests`);
    console.error(`# SKIP ${reason}`);
    t.plan(0, reason);
    return undefined;
  }
  const server = await startNatsServer(bin);
  t.teardown(() => server.destroy());
  const { url, port, storeDir, stop, start, restart, pause, resume } = server;
  return { url, port, storeDir, stop, start, restart, pause, resume };
}
