import { join } from 'node:path';
import t from 'tap';
import { cityLog, startCluster, until, type Member } from './clusterKit.ts';

/**
 * Issue #20 for session requests: the owner of a city accepts session creates (mock agent) and messages to a
 * running session, and is SIGKILLed before it can finish them. The supervisor that adopts the city must end every one of them with exactly
 * one terminal event (`request.result.session.create` or `request.failed`), and make each session once.
 */
t.setTimeout(4 * 60_000);

const CITY = 'quay';
// Subprocess sessions die with their supervisor's process group no later than the test: no tmux server to reap.
const ENV = { GC_SESSION_RUNTIME: 'subprocess' };
const CREATES = 3;

type Logged = Record<string, unknown> & { seq: number; type: string; payload?: { request_id?: string } };

const isTerminal = (e: Logged): boolean =>
  e.type === 'request.failed' || e.type.startsWith('request.result.session.');

/** True once `m` lists the city running. */
const running = async (m: Member): Promise<boolean> => {
  const r = await m.call('GET', '/v0/cities');
  return (r.body.items as Array<{ name: string; running: boolean }>).some(
    (c) => c.name === CITY && c.running,
  );
};

t.test('session creates and messages the dead owner accepted are finished once by the adopter', async (t) => {
  const cluster = await startCluster(t, { a: ENV, b: ENV });
  if (!cluster) return; // skipped by startCluster: no nats-server
  const { a, b } = cluster;
  const created = await a.call('POST', '/v0/city', { dir: join(a.proc.cities, CITY), provider: 'mock' });
  t.equal(created.status, 202, JSON.stringify(created.body));
  await until(
    'A serves the sessions',
    async () => (await a.call('GET', `/v0/city/${CITY}/sessions`)).status === 200,
    60_000,
  );
  await until('B follows the city', () => running(b));

  // A session running before the kill, to take messages: they are async requests as well.
  const pier = await a.call('POST', `/v0/city/${CITY}/sessions`, { title: 'pier' });
  t.equal(pier.status, 202);
  const pierId = await until(
    'pier active',
    async () => {
      const list = await a.call('GET', `/v0/city/${CITY}/sessions`);
      const s = (list.body.items as Array<{ id: string; title: string; state: string }>).find(
        (x) => x.title === 'pier',
      );
      return s?.state === 'active' ? s.id : undefined;
    },
    60_000,
  );

  // Accepted together, then the owner dies at once: starting a mock agent takes longer than this.
  const replies = await Promise.all([
    ...Array.from({ length: CREATES }, (_, i) =>
      a.call('POST', `/v0/city/${CITY}/sessions`, { title: `dock ${i}` }),
    ),
    ...['ahoy', 'avast'].map((message) =>
      a.call('POST', `/v0/city/${CITY}/session/${pierId}/messages`, { message }),
    ),
  ]);
  await a.proc.stop('SIGKILL');
  const accepted = replies.filter((r) => r.status === 202).map((r) => r.body.request_id as string);
  t.equal(
    accepted.length,
    replies.length,
    `every request was accepted: ${JSON.stringify(replies.map((r) => r.status))}`,
  );

  const log = await until(
    'a terminal event for every accepted request',
    async () => {
      // While B opens the city as its owner, the city's routes answer 404 for a moment.
      const events = (await cityLog(b, CITY).catch(() => undefined)) as Logged[] | undefined;
      if (!events) return undefined;
      const done = new Set(events.filter(isTerminal).map((e) => e.payload?.request_id));
      return accepted.every((id) => done.has(id)) ? events : undefined;
    },
    90_000,
  );
  const fence = log.find((e) => e.type === 'city.owner_changed');
  t.ok(fence, 'B adopted the city (fenced its log)');
  const terminals = log.filter((e) => isTerminal(e) && accepted.includes(e.payload?.request_id ?? ''));
  for (const id of accepted) {
    const mine = terminals.filter((e) => e.payload?.request_id === id);
    t.equal(
      mine.length,
      1,
      `request ${id}: exactly one terminal event (${mine.map((e) => e.type).join(', ')})`,
    );
  }
  // Otherwise the test proved nothing about failover: the dead owner had finished them all itself.
  const byAdopter = terminals.filter((e) => fence && e.seq > fence.seq);
  t.ok(
    byAdopter.length > 0,
    `the adopter finished ${byAdopter.length} of ${accepted.length} requests the owner accepted`,
  );
  t.comment(
    `terminal events: ${JSON.stringify(terminals.map((e) => [e.type, e.seq, (e.payload as { error_message?: string }).error_message]))}, fence at ${fence?.seq}`,
  );

  // One session per accepted create, none made twice by the adopter.
  const list = await b.call('GET', `/v0/city/${CITY}/sessions`);
  t.equal(list.status, 200);
  const titles = (list.body.items as Array<{ title: string }>).map((s) => s.title).sort();
  t.same(
    titles,
    [...Array.from({ length: CREATES }, (_, i) => `dock ${i}`), 'pier'],
    'each accepted create made exactly one session',
  );
});
