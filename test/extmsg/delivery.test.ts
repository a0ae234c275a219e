import t from 'tap';
import { DELIVERY_ID_KEY } from '../../machines/extmsg/decideOutbound.ts';
import { call, conv, extmsgHarness, FAST, testAdapter, wire } from './helpers.ts';

const send = (h: Parameters<typeof call>[0], text: string, extra: object = {}) =>
  call(h, 'POST', '/extmsg/outbound', { session_id: 's1', conversation: conv(), text, ...extra });

t.test('outbound is delivered to the adapter, acknowledged, recorded once', async (t) => {
  const h = await extmsgHarness(t);
  const adapter = await testAdapter(t);
  await wire(t, h, adapter);
  const res = await send(h, 'hello world', { reply_to_message_id: 'p0' });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.match(body, {
    Receipt: { Delivered: true, MessageID: 'm-1', FailureKind: '', Metadata: { adapter: 'test' } },
    DeliveryContext: { SessionID: 's1', LastMessageID: 'm-1', BindingGeneration: 1 },
    TranscriptEntry: { Sequence: 1, Kind: 'outbound', SourceSessionID: 's1', Text: 'hello world' },
  });
  const id = body.Receipt.Metadata[DELIVERY_ID_KEY];
  t.ok(id);
  t.same(adapter.requests, [
    {
      Conversation: conv(),
      Text: 'hello world',
      ReplyToMessageID: 'p0',
      IdempotencyKey: id,
      Metadata: { [DELIVERY_ID_KEY]: id },
    },
  ]);
  const types = (await h.events()).map((e) => e.type).slice(4);
  t.same(types, [
    'extmsg.transcript_appended',
    'extmsg.delivery_queued',
    'extmsg.delivery_acked',
    'extmsg.outbound',
  ]);
  const outbound = (await h.events()).find((e) => e.type === 'extmsg.outbound')!;
  t.same(outbound.payload, { conversation_id: 'C1', message_id: 'm-1', provider: 'chat', session: 's1' });
  const page = await call(
    h,
    'GET',
    '/extmsg/transcript?scope_id=T1&provider=chat&account_id=acct&conversation_id=C1&kind=room',
  );
  t.equal(page.json().items[0].ProviderMessageID, 'm-1', 'the entry learns the provider id');
});

t.test(
  'outbound refusals: unknown adapter 404, unbound session 422, no conversation 422; nothing recorded',
  async (t) => {
    const h = await extmsgHarness(t);
    const adapter = await testAdapter(t);
    const none = await send(h, 'x');
    t.equal(none.statusCode, 404);
    t.match(none.json().detail, /^not_found: adapter chat\/acct/);
    await wire(t, h, adapter);
    const before = (await h.events()).length;
    const foreign = await call(h, 'POST', '/extmsg/outbound', {
      session_id: 's2',
      conversation: conv(),
      text: 'x',
    });
    t.equal(foreign.statusCode, 422);
    t.match(foreign.json().detail, /^processing_failed: conversation .* is bound to s1, not s2/);
    const noConv = await call(h, 'POST', '/extmsg/outbound', { session_id: 's1', text: 'x' });
    t.equal(noConv.statusCode, 422);
    const noSession = await call(h, 'POST', '/extmsg/outbound', { conversation: conv(), text: 'x' });
    t.equal(noSession.statusCode, 422);
    t.equal((await h.events()).length, before);
    t.equal(adapter.requests.length, 0);
  },
);

t.test('an adapter without a callback answers unsupported and records nothing (as upstream)', async (t) => {
  const h = await extmsgHarness(t);
  await wire(t, h, undefined);
  const before = (await h.events()).length;
  const res = await send(h, 'x');
  t.equal(res.statusCode, 200);
  t.match(res.json().Receipt, { Delivered: false, FailureKind: 'unsupported' });
  t.equal((await h.events()).length, before);
});

t.test(
  'an adapter that is down gets the message once it is back (retry with backoff), exactly once',
  async (t) => {
    const h = await extmsgHarness(t);
    const adapter = await testAdapter(t);
    await wire(t, h, adapter);
    await adapter.down();
    const res = await send(h, 'are you there?');
    t.equal(res.statusCode, 200);
    t.match(res.json().Receipt, {
      Delivered: false,
      FailureKind: 'transient',
      Metadata: { 'gc.delivery_status': 'pending' },
    });
    const id = res.json().TranscriptEntry.Metadata[DELIVERY_ID_KEY];
    await adapter.up();
    t.equal(await h.handle.service.settled(id), 'acked');
    t.equal(adapter.acked.length, 1);
    const failed = (await h.events()).filter((e) => e.type === 'extmsg.delivery_failed');
    t.ok(failed.length >= 1, 'the failed attempts are journaled');
    t.match(failed[0]!.payload, { id, attempt: 1, failure_kind: 'transient' });
  },
);

t.test(
  '503s are retried; a 400 goes to the dead letter at once; the retry limit also ends in it',
  async (t) => {
    const h = await extmsgHarness(t);
    const adapter = await testAdapter(t, 'fail503');
    await wire(t, h, adapter);
    const res = await send(h, 'one');
    const id = res.json().TranscriptEntry.Metadata[DELIVERY_ID_KEY];
    t.equal(await h.handle.service.settled(id), 'dead', 'dead after maxAttempts');
    t.equal(adapter.requests.length, FAST.delivery!.maxAttempts);
    const dead = (await h.events()).filter((e) => e.type === 'extmsg.delivery_dead');
    t.match(
      dead.map((e) => e.payload),
      [{ id, attempts: 6, failure_kind: 'transient' }],
    );
    adapter.mode = 'reject400';
    const rejected = await send(h, 'two');
    t.match(rejected.json().Receipt, {
      Delivered: false,
      FailureKind: 'permanent',
      Metadata: { 'gc.delivery_status': 'dead' },
    });
    t.equal(adapter.requests.length, 7, 'a permanent failure is not retried');
  },
);

t.test('many messages while the adapter is down: none lost, none duplicated', async (t) => {
  const h = await extmsgHarness(t, {
    ...FAST,
    delivery: { ...FAST.delivery, maxAttempts: 10_000 },
    answerWithinMs: 1000,
  });
  const adapter = await testAdapter(t, 'fail503');
  await wire(t, h, adapter);
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(h, `m${i}`)));
  const ids = answers.map((r) => r.json().TranscriptEntry.Metadata[DELIVERY_ID_KEY] as string);
  t.equal(new Set(ids).size, 20);
  adapter.mode = 'ok';
  const settled = await Promise.all(ids.map((id) => h.handle.service.settled(id)));
  t.same(new Set(settled), new Set(['acked']));
  t.same(adapter.acked.map((r) => r.Text).sort(), answers.map((_, i) => `m${i}`).sort());
  t.equal(new Set(adapter.acked.map((r) => r.IdempotencyKey)).size, 20, 'each acknowledged exactly once');
});

t.test(
  'a restart with deliveries pending resumes them; acknowledged ones are never sent again',
  async (t) => {
    const slow = { ...FAST, delivery: { ...FAST.delivery, baseMs: 60_000, capMs: 60_000 } };
    const h = await extmsgHarness(t, slow);
    const adapter = await testAdapter(t);
    await wire(t, h, adapter);
    const delivered = await send(h, 'before');
    t.equal(delivered.json().Receipt.Delivered, true);
    adapter.mode = 'fail503';
    const pending = await send(h, 'during');
    t.equal(pending.json().Receipt.Delivered, false);
    const id = pending.json().TranscriptEntry.Metadata[DELIVERY_ID_KEY];
    t.equal(adapter.requests.length, 2);
    adapter.mode = 'ok';
    // The next attempt is due in a minute; a restart with a short backoff picks the delivery up at its due
    // time as journaled, so the restarted service is given a clock a minute ahead.
    const ahead = () => new Date(Date.now() + 61_000);
    await h.restart({ ...FAST, clock: ahead });
    t.equal(await h.handle.service.settled(id), 'acked');
    t.same(
      adapter.acked.map((r) => r.Text),
      ['before', 'during'],
      'the first is not sent again',
    );
    await h.restart(FAST);
    t.equal(adapter.requests.length, 3, 'nothing is resent after a second restart');
    t.equal(h.handle.service.model.pending.size, 0);
  },
);

t.test(
  'a repeated idempotency_key answers the first result and delivers nothing again, also after a restart',
  async (t) => {
    const h = await extmsgHarness(t);
    const adapter = await testAdapter(t);
    await wire(t, h, adapter);
    const first = await send(h, 'once', { idempotency_key: 'k-1' });
    t.equal(first.statusCode, 200);
    t.equal(first.json().Receipt.Delivered, true);
    t.equal(adapter.requests[0]?.IdempotencyKey, 'k-1', 'the caller’s key reaches the adapter');
    const before = (await h.events()).length;
    const again = await send(h, 'once', { idempotency_key: 'k-1' });
    t.equal(again.statusCode, 200);
    t.same(again.json().Receipt, first.json().Receipt, 'the first receipt');
    t.same(again.json().TranscriptEntry.ID, first.json().TranscriptEntry.ID, 'the first transcript entry');
    t.equal(adapter.requests.length, 1, 'delivered once');
    t.equal((await h.events()).length, before, 'nothing recorded');
    const other = await send(h, 'another text', { idempotency_key: 'k-1' });
    t.equal(other.statusCode, 422, 'the key used for another message');
    t.match(other.json().detail, /idempotency_mismatch/);
    await h.restart(FAST);
    const afterRestart = await send(h, 'once', { idempotency_key: 'k-1' });
    t.same(afterRestart.json().Receipt, first.json().Receipt, 'the key survives a restart');
    t.equal(adapter.requests.length, 1, 'still delivered once');
    t.equal((await send(h, 'once', { idempotency_key: 'k-2' })).json().Receipt.Delivered, true);
    t.equal(adapter.requests.length, 2, 'a new key is a new delivery');
  },
);
