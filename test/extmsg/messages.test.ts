import t from 'tap';
import { call, conv, extmsgHarness, inbound, wire } from './helpers.ts';

t.test(
  'inbound to a bound conversation: routed to the session, transcript entry, extmsg.inbound',
  async (t) => {
    const h = await extmsgHarness(t);
    await wire(t, h, undefined);
    const res = await call(h, 'POST', '/extmsg/inbound', inbound('p1', '  hi there '));
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.match(body, {
      TargetSessionID: 's1',
      TargetAgentName: '',
      Binding: { ID: 'xb-1', Status: 'active' },
      GroupRoute: { Match: '', TargetSessionID: '', UpdateCursor: false },
      TranscriptEntry: {
        Sequence: 1,
        Kind: 'inbound',
        Provenance: 'live',
        ProviderMessageID: 'p1',
        Text: 'hi there',
      },
    });
    const notice = (await h.events()).filter((e) => e.type === 'extmsg.inbound');
    t.same(
      notice.map((e) => e.payload),
      [{ actor: 'U1', conversation_id: 'C1', provider: 'chat', target_session: 's1' }],
    );
  },
);

t.test(
  'inbound is idempotent by provider message id: a duplicate answers the first result, records nothing',
  async (t) => {
    const h = await extmsgHarness(t);
    await wire(t, h, undefined);
    const first = await call(h, 'POST', '/extmsg/inbound', inbound('p1', 'one'));
    const before = (await h.events()).length;
    const dup = await call(h, 'POST', '/extmsg/inbound', inbound('p1', 'changed text'));
    t.equal(dup.statusCode, 200);
    t.same(dup.json(), first.json());
    t.equal((await h.events()).length, before);
    // Concurrent duplicates in one round: one entry.
    const many = await Promise.all(
      Array.from({ length: 5 }, () => call(h, 'POST', '/extmsg/inbound', inbound('p2'))),
    );
    t.same(
      new Set(many.map((r) => r.json<{ TranscriptEntry: { ID: string } }>().TranscriptEntry.ID)).size,
      1,
    );
    await h.restart();
    const afterRestart = await call(h, 'POST', '/extmsg/inbound', inbound('p1'));
    t.same(afterRestart.json(), first.json(), 'still the first result after a restart');
    t.equal(
      (
        await call(
          h,
          'GET',
          `/extmsg/transcript?scope_id=T1&provider=chat&account_id=acct&conversation_id=C1&kind=room`,
        )
      ).json().total,
      2,
    );
  },
);

t.test('inbound refusals: unknown adapter 404, raw payload 422, no change', async (t) => {
  const h = await extmsgHarness(t);
  const nope = await call(h, 'POST', '/extmsg/inbound', inbound('p1'));
  t.equal(nope.statusCode, 404);
  t.match(nope.json().detail, /^not_found: adapter chat\/acct not registered/);
  const raw = await call(h, 'POST', '/extmsg/inbound', {
    provider: 'chat',
    account_id: 'acct',
    payload: 'aGk=',
  });
  t.equal(raw.statusCode, 422);
  t.match(raw.json().detail, /^processing_failed: /);
  const bad = await call(h, 'POST', '/extmsg/inbound', { message: { provider_message_id: 'x' } });
  t.equal(bad.statusCode, 422);
  t.equal((await h.events()).length, 0);
});

t.test(
  'group routing: explicit target moves the cursor, then last addressed, then default, else no match',
  async (t) => {
    const h = await extmsgHarness(t);
    await call(h, 'POST', '/extmsg/adapters', { provider: 'chat', account_id: 'acct' });
    const g = (
      await call(h, 'POST', '/extmsg/groups', { root_conversation: conv('G'), default_handle: 'mayor' })
    ).json();
    const unmatched = await call(h, 'POST', '/extmsg/inbound', inbound('n0', 'x', conv('G')));
    t.match(unmatched.json(), {
      TargetSessionID: '',
      GroupRoute: { Match: 'no_match' },
      TranscriptEntry: { Sequence: 0 },
    });
    await call(h, 'POST', '/extmsg/participants', { group_id: g.ID, handle: 'mayor', session_id: 's-mayor' });
    await call(h, 'POST', '/extmsg/participants', {
      group_id: g.ID,
      handle: 'deacon',
      session_id: 's-deacon',
    });
    const byDefault = await call(h, 'POST', '/extmsg/inbound', inbound('n1', 'x', conv('G')));
    t.match(byDefault.json().GroupRoute, {
      Match: 'default',
      TargetSessionID: 's-mayor',
      UpdateCursor: false,
    });
    const explicit = await call(
      h,
      'POST',
      '/extmsg/inbound',
      inbound('n2', 'x', conv('G'), { explicit_target: 'Deacon' }),
    );
    t.match(explicit.json().GroupRoute, {
      Match: 'explicit_target',
      TargetSessionID: 's-deacon',
      UpdateCursor: true,
    });
    const last = await call(h, 'POST', '/extmsg/inbound', inbound('n3', 'x', conv('G')));
    t.match(last.json().GroupRoute, { Match: 'last_addressed', TargetSessionID: 's-deacon' });
    const thread = conv('T9', { kind: 'thread', parent_conversation_id: 'G' });
    const inThread = await call(h, 'POST', '/extmsg/inbound', inbound('n4', 'x', thread));
    t.match(inThread.json().GroupRoute, { Match: 'last_addressed' }, 'a thread routes by its parent group');
    const group = await call(
      h,
      'GET',
      '/extmsg/groups?scope_id=T1&provider=chat&account_id=acct&conversation_id=G&kind=room',
    );
    t.equal(group.json().LastAddressedHandle, 'deacon');
  },
);

t.test('transcript pages by sequence cursor, asc and desc, limit capped at 500', async (t) => {
  const h = await extmsgHarness(t);
  await wire(t, h, undefined);
  for (let i = 1; i <= 7; i++) await call(h, 'POST', '/extmsg/inbound', inbound(`p${i}`, `m${i}`));
  const q = 'scope_id=T1&provider=chat&account_id=acct&conversation_id=C1&kind=room';
  const page1 = await call(h, 'GET', `/extmsg/transcript?${q}&limit=3`);
  t.equal(page1.statusCode, 200);
  t.ok(page1.headers['x-gc-index']);
  t.same(
    page1.json().items.map((e: { Sequence: number }) => e.Sequence),
    [1, 2, 3],
  );
  t.equal(page1.json().total, 7);
  t.equal(page1.json().next_cursor, '3');
  const page3 = (await call(h, 'GET', `/extmsg/transcript?${q}&limit=3&after_sequence=6`)).json();
  t.same(
    page3.items.map((e: { Text: string }) => e.Text),
    ['m7'],
  );
  t.equal(page3.next_cursor, undefined);
  const desc = (await call(h, 'GET', `/extmsg/transcript?${q}&order=desc&limit=2`)).json();
  t.same(
    desc.items.map((e: { Sequence: number }) => e.Sequence),
    [7, 6],
  );
  const empty = (await call(h, 'GET', `/extmsg/transcript?${q.replace('C1', 'C9')}`)).json();
  t.same(empty, { items: [], total: 0 });
  t.equal((await call(h, 'GET', `/extmsg/transcript?${q}&order=sideways`)).statusCode, 422);
  t.equal((await call(h, 'GET', `/extmsg/transcript?${q}&limit=-1`)).statusCode, 422);
});

t.test('transcript ack: per-participant, forward only, bounded by the head; strangers are 404', async (t) => {
  const h = await extmsgHarness(t);
  await wire(t, h, undefined);
  for (let i = 1; i <= 3; i++) await call(h, 'POST', '/extmsg/inbound', inbound(`p${i}`));
  const ack = await call(h, 'POST', '/extmsg/transcript/ack', {
    conversation: conv(),
    session_id: 's1',
    sequence: 2,
  });
  t.equal(ack.statusCode, 200);
  t.same(ack.json(), { status: 'acked' });
  const before = (await h.events()).length;
  const lower = await call(h, 'POST', '/extmsg/transcript/ack', {
    conversation: conv(),
    session_id: 's1',
    sequence: 1,
  });
  t.equal(lower.statusCode, 200, 'a lower ack is accepted');
  const beyond = await call(h, 'POST', '/extmsg/transcript/ack', {
    conversation: conv(),
    session_id: 's1',
    sequence: 9,
  });
  t.equal(beyond.statusCode, 422);
  const stranger = await call(h, 'POST', '/extmsg/transcript/ack', {
    conversation: conv(),
    session_id: 'zz',
    sequence: 1,
  });
  t.equal(stranger.statusCode, 404);
  t.match(stranger.json().detail, /^not_found: session zz is not a participant/);
  t.equal((await h.events()).length, before, 'no event for the no-op and the refusals');
  const toHead = await call(h, 'POST', '/extmsg/transcript/ack', { conversation: conv(), session_id: 's1' });
  t.equal(toHead.statusCode, 200);
  const acked = (await h.events()).filter((e) => e.type === 'extmsg.transcript_acked').map((e) => e.payload);
  t.match(acked, [
    { session_id: 's1', sequence: 2 },
    { session_id: 's1', sequence: 3 },
  ]);
  await h.restart();
  t.equal(
    h.handle.service.model.transcripts.values().next().value!.acks.get('s1'),
    3,
    'the read position is durable',
  );
});

t.test(
  'internal state events stay off the wire unless include=internal; upstream notices are served',
  async (t) => {
    const h = await extmsgHarness(t);
    await wire(t, h, undefined);
    await call(h, 'POST', '/extmsg/inbound', inbound('p1'));
    const served = await h.app.inject({ method: 'GET', url: `${h.base}/events` });
    const types = served.json().items.map((e: { type: string }) => e.type);
    t.same([...types].sort(), ['extmsg.adapter_added', 'extmsg.bound', 'extmsg.inbound']);
    const all = await h.app.inject({ method: 'GET', url: `${h.base}/events?include=internal` });
    t.ok(all.json().items.some((e: { type: string }) => e.type === 'extmsg.transcript_appended'));
  },
);
