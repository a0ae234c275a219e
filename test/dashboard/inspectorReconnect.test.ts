import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { WebSocketServer, type WebSocket } from 'ws';
import { recordingLogger } from '../helpers/recordingLogger.ts';
import { eventually, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

/**
 * The XState inspector bridge comes back after its peer goes away: a real supervisor sends to a `ws`
 * server standing in for `@statelyai/inspect/server`; the server is killed (every socket terminated) and
 * started again on the same port. The supervisor reconnects by itself, the new peer gets every live actor
 * with its current snapshot (including a city created while it was away, and the city it knew, as it is
 * now), and the supervisor's log says when the inspector went away and when it was back.
 */

interface Message {
  type: string;
  sessionId: string;
  snapshot?: { value?: unknown };
}

/** A stand-in inspector bridge: records every message of every connection. */
async function peer(
  port = 0,
): Promise<{ server: WebSocketServer; port: number; got: Message[]; kill(): Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const got: Message[] = [];
  const sockets = new Set<WebSocket>();
  let killed = false;
  server.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('message', (data: Buffer) => got.push(JSON.parse(data.toString('utf8')) as Message));
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    got,
    kill: async () => {
      if (killed) return;
      killed = true;
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const RUNNING = JSON.stringify({ live: 'running' });

/** The actors announced (`@xstate.actor`) to a peer, each with the state value it was announced in. */
const actorsIn = (got: Message[]): Map<string, string> =>
  new Map(
    got
      .filter((m) => m.type === '@xstate.actor')
      .map((m) => [m.sessionId, JSON.stringify(m.snapshot?.value)]),
  );

/** The state value a peer last heard for `id` (announcement or transition). */
const lastState = (got: Message[], id: string): string | undefined =>
  JSON.stringify(got.findLast((m) => m.sessionId === id && m.snapshot?.value !== undefined)?.snapshot?.value);

t.test('kill and restart the inspector peer: it reconnects and sends every actor as it is now', async (t) => {
  const first = await peer();
  t.teardown(() => first.kill());
  const { logger, records } = recordingLogger();
  const s = await startTestSupervisor(t, {
    tickMs: 100,
    options: { logger, inspect: `ws://127.0.0.1:${first.port}` },
  });
  const create = async (name: string): Promise<void> => {
    const res = await s.call('POST', '/v0/city', { dir: join(s.root, name), start_command: 'true' });
    t.equal(res.status, 202);
    await waitForTerminal(s.log, res.body.request_id, 20_000);
  };
  await create('alpha');
  await eventually(() => actorsIn(first.got).has('supervisor'), 10_000);
  await eventually(() => lastState(first.got, 'city:alpha') === RUNNING, 10_000);

  await first.kill();
  await eventually(
    () => records.some((r) => r.msg === 'XState inspector connection dropped; reconnecting'),
    10_000,
  );
  // Changed while nobody listens: a new city, and alpha goes on as it is.
  await create('beta');

  const second = await peer(first.port);
  t.teardown(() => second.kill());
  await eventually(() => actorsIn(second.got).has('city:beta'), 20_000);
  const fresh = actorsIn(second.got);
  t.equal(fresh.get('city:beta'), RUNNING, 'the city created while it was away, as it is now');
  t.equal(fresh.get('city:alpha'), RUNNING, 'the city it knew, announced again');
  t.ok(fresh.has('supervisor'), 'the supervisor too');
  for (const entry of s.running.supervisor.inspection.list())
    t.ok(fresh.has(entry.id), `live actor ${entry.id} announced on reconnect`);
  await eventually(() => records.some((r) => r.msg === 'XState inspector is back'), 5000);
  t.equal(
    records.filter((r) => r.msg === 'XState inspector connection dropped; reconnecting').length,
    1,
    'down is said once, not at every retry',
  );
});
