import t from 'tap';
import { isolatedEnv, jsonLines, runGc } from '../cli/helpers/gc.ts';
import { openSse } from '../helpers/sse.ts';
import { cityLog, createRunningCity, startCluster, TOKEN, until } from './clusterKit.ts';

/**
 * Issue #20 with local processes: three clustered nats-server nodes, two supervisors in one cluster. A
 * city created on one is listed, its events listed and streamed by the other from JetStream with the
 * same cursors; a mutation sent to the other is forwarded to the owner; every request needs the token.
 */
t.setTimeout(4 * 60_000);

t.test('two supervisors serve one cluster: replicas read, mutations reach the owner', async (t) => {
  const cluster = await startCluster(t);
  if (!cluster) return;
  const { a, b } = cluster;
  await createRunningCity(a, 'harbor');

  const listed = await until('B to list harbor running', async () => {
    const r = await b.call('GET', '/v0/cities');
    const city = (r.body.items as Array<{ name: string; running: boolean }>).find((c) => c.name === 'harbor');
    return city?.running ? city : undefined;
  });
  t.match(listed, { name: 'harbor', running: true }, 'the replica lists the city from the shared registry');

  t.same(await cityLog(b, 'harbor'), await cityLog(a, 'harbor'), 'both serve the same city log');

  // A stream on B, and a write sent to B: it is forwarded to A (the owner) and comes back on B's stream.
  const head = Number((await b.call('GET', '/v0/city/harbor/events?limit=1')).headers.get('x-gc-index'));
  const sse = await openSse(`${b.url}/v0/city/harbor/events/stream?after_seq=${head}&access_token=${TOKEN}`);
  t.teardown(() => sse.close());
  t.equal(sse.status, 200, 'the replica streams the city');
  const emitted = await b.call('POST', '/v0/city/harbor/events', { type: 'custom.via_b', actor: 'tester' });
  t.equal(emitted.status, 201, `a write to the replica is accepted (${JSON.stringify(emitted.body)})`);
  t.equal(emitted.headers.get('gc-city-owner'), a.url, 'it was served by the owner');
  const frame = await sse.nextEvent(10_000);
  t.match(JSON.parse(frame.data), { type: 'custom.via_b', seq: head + 1 });
  t.equal(frame.id, String(head + 1), 'the replica stream’s ids are the city seqs');

  // The supervisor scope: one shared __supervisor__ log, so the composite cursors mean the same on both.
  const supA = await a.call('GET', '/v0/events?include=internal');
  const supB = await b.call('GET', '/v0/events?include=internal');
  const key = (e: { city: string; seq: number; type: string }) => `${e.city}:${e.seq}:${e.type}`;
  t.same(
    (supB.body.items as Array<{ city: string; seq: number; type: string }>).map(key).sort(),
    (supA.body.items as Array<{ city: string; seq: number; type: string }>).map(key).sort(),
    'the supervisor event list is the same on both (shared supervisor log, every city)',
  );
  // An async create accepted by A completes on B's supervisor stream, resumed from A's event_cursor.
  const accepted = await a.call('POST', '/v0/city', { dir: `${a.proc.cities}/pier`, start_command: 'true' });
  t.equal(accepted.status, 202);
  const { request_id, event_cursor } = accepted.body as { request_id: string; event_cursor: string };
  const sup = await openSse(
    `${b.url}/v0/events/stream?after_cursor=${encodeURIComponent(event_cursor)}&access_token=${TOKEN}`,
  );
  t.teardown(() => sup.close());
  t.equal(sup.status, 200, `B takes A's cursor ${event_cursor}`);
  let terminal: { type: string; city: string } | undefined;
  while (!terminal) {
    const data = JSON.parse((await sup.nextEvent(20_000)).data) as {
      type: string;
      city: string;
      payload?: { request_id?: string };
    };
    if (data.payload?.request_id === request_id) terminal = data;
  }
  t.match(terminal, { type: 'request.result.city.create', city: 'pier' }, 'the terminal event reaches B');

  // Every request needs the token, on both, forwarded or not.
  for (const m of [a, b]) {
    const anonymous = await m.proc.call('GET', '/v0/city/harbor/events');
    t.equal(anonymous.status, 401, 'no token: 401');
    const wrong = await m.proc.call(
      'POST',
      '/v0/city/harbor/events',
      { type: 'custom.x', actor: 'x' },
      {
        authorization: 'Bearer not-it',
      },
    );
    t.equal(wrong.status, 401, 'wrong token: 401, nothing forwarded');
  }
  // The built gc binary sends GC_API_TOKEN; without it the same command is refused.
  const gcEnv = (extra: NodeJS.ProcessEnv) => ({
    env: isolatedEnv(b.proc.home, { GC_API: b.url, ...extra }),
  });
  const withToken = await runGc(
    ['events', '--city', 'harbor', '--type', 'custom.via_b'],
    gcEnv({ GC_API_TOKEN: TOKEN }),
  );
  t.equal(withToken.code, 0, `gc with GC_API_TOKEN: ${withToken.stderr}`);
  t.match(jsonLines(withToken.stdout), [{ type: 'custom.via_b' }], 'gc reads the replica with the token');
  const without = await runGc(['events', '--city', 'harbor'], gcEnv({ GC_API_TOKEN: '' }));
  t.not(without.code, 0, 'gc without the token fails');
  t.match(without.stderr, /unauthorized/, 'and says why');
  t.notMatch(a.proc.log() + b.proc.log(), TOKEN, 'the token appears in no log line');
});

t.test('with forwarding off a replica names the owner in a 421 problem', async (t) => {
  const cluster = await startCluster(t, { b: { GC_FORWARD: '0' } });
  if (!cluster) return;
  const { a, b } = cluster;
  await createRunningCity(a, 'quay');
  await until('B to know quay', async () => {
    const r = await b.call('GET', '/v0/cities');
    return (r.body.items as Array<{ name: string }>).some((c) => c.name === 'quay') || undefined;
  });
  const before = await cityLog(a, 'quay');
  const refused = await until('B to know the owner', async () => {
    const r = await b.call('POST', '/v0/city/quay/events', { type: 'custom.refused', actor: 'tester' });
    return r.status === 421 ? r : undefined;
  });
  t.match(refused.body, {
    status: 421,
    title: 'Misdirected Request',
    detail: /^not_owner: city quay is owned by supervisor .+ at /,
  });
  t.equal(refused.headers.get('gc-city-owner'), a.url, 'the owner’s URL in a header too');
  t.ok(String(refused.body.detail).endsWith(a.url), 'the detail names the owner’s URL');
  t.same(await cityLog(a, 'quay'), before, 'nothing was written');
  const read = await b.call('GET', '/v0/city/quay/events');
  t.equal(read.status, 200, 'reads are still served by the replica');
});
