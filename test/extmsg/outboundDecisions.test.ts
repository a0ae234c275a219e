/**
 * Outbound messages, their deliveries and read positions through the pure deciders
 * (machines/extmsg/decideOutbound.ts, decideTranscript.ts): who may publish, the adapter's length limit,
 * an adapter without a callback, the idempotency key, what an ack or a failure records once and only while
 * the delivery is pending, and acks that only move forward. Expected values worked out by hand.
 */
import t from 'tap';
import {
  decideBind,
  decideDeliveryAcked,
  decideDeliveryFailed,
  decideEnsureGroup,
  decideOutbound,
  decideRegisterAdapter,
  decideTranscriptAck,
  decideUpsertParticipant,
  DELIVERY_ID_KEY,
  ZERO_TIME,
} from '../../machines/extmsg/index.ts';
import type { ConversationRef, PublishReceipt } from '../../schemas/extmsg.ts';
import { EXTMSG_CTX as ctx, EXTMSG_NOW as now, extmsgCity, type ExtmsgCity } from '../helpers/extmsgCity.ts';

const conv = (conversation_id: string, more: Partial<ConversationRef> = {}): ConversationRef => ({
  scope_id: 'team',
  provider: 'slack',
  account_id: 'acme',
  conversation_id,
  kind: 'room',
  ...more,
});
const general = conv('general');

function boundCity(max = 0, callback_url = 'https://hook.example'): ExtmsgCity {
  const city = extmsgCity();
  const capabilities = {
    SupportsChildConversations: false,
    SupportsAttachments: false,
    MaxMessageLength: max,
  };
  city.run(
    decideRegisterAdapter(
      city.model,
      { provider: 'slack', account_id: 'acme', callback_url, capabilities },
      ctx,
    ),
  );
  city.run(decideBind(city.model, { conversation: general, session_id: 's1' }, ctx));
  return city;
}

const receipt = (MessageID: string): PublishReceipt => ({
  MessageID,
  Conversation: general,
  Delivered: true,
  FailureKind: '',
  RetryAfter: 0,
  Metadata: {},
});

t.test('outbound refusals: no conversation, no adapter, not bound, bound to another, too long', async (t) => {
  const city = boundCity(5);
  t.same(decideOutbound(city.model, { session_id: 's1', text: 'x' }, ctx), {
    ok: false,
    rejection: { kind: 'unprocessable', message: 'conversation is required', field: 'body.conversation' },
  });
  t.same(
    decideOutbound(
      city.model,
      { session_id: 's1', text: 'x', conversation: conv('g', { provider: 'irc' }) },
      ctx,
    ),
    {
      ok: false,
      rejection: { kind: 'not_found', message: 'adapter irc/acme not registered' },
    },
  );
  t.same(decideOutbound(city.model, { session_id: 's2', text: 'x', conversation: general }, ctx), {
    ok: false,
    rejection: {
      kind: 'unprocessable',
      message: 'conversation slack/acme/team/general is bound to s1, not s2',
    },
  });
  t.same(decideOutbound(city.model, { session_id: 's1', text: 'x', conversation: conv('other') }, ctx), {
    ok: false,
    rejection: {
      kind: 'unprocessable',
      message: 'session s1 has no active binding to conversation slack/acme/team/other',
    },
  });
  t.same(decideOutbound(city.model, { session_id: 's1', text: '123456', conversation: general }, ctx), {
    ok: false,
    rejection: {
      kind: 'unprocessable',
      message: "text is longer than the adapter's 5 characters",
      field: 'body.text',
    },
  });
  t.ok(
    decideOutbound(city.model, { session_id: 's1', text: '12345', conversation: general }, ctx).ok,
    'at the limit',
  );
  const agent = extmsgCity();
  agent.run(
    decideRegisterAdapter(
      agent.model,
      { provider: 'slack', account_id: 'acme', callback_url: 'http://h' },
      ctx,
    ),
  );
  agent.run(decideBind(agent.model, { conversation: general, agent_name: 'mayor' }, ctx));
  t.same(decideOutbound(agent.model, { session_id: 's1', text: 'x', conversation: general }, ctx), {
    ok: false,
    rejection: {
      kind: 'unprocessable',
      message: 'conversation slack/acme/team/general is bound to agent mayor, not s1',
    },
  });
});

t.test('a group participant may publish to the group without a binding', async (t) => {
  const city = boundCity();
  const root = conv('launch');
  const group = city.run(decideEnsureGroup(city.model, { root_conversation: root }, ctx));
  city.run(
    decideUpsertParticipant(city.model, { group_id: group.ID, handle: 'bob', session_id: 's-bob' }, ctx),
  );
  const out = decideOutbound(city.model, { session_id: 's-bob', text: 'hi', conversation: root }, ctx);
  t.same(out.ok && out.decision.result.kind, 'queued');
  t.same(
    out.ok && (out.decision.records[1]!.payload as { binding_generation: number }).binding_generation,
    0,
  );
});

t.test(
  'an adapter without a callback cannot deliver: a not-delivered receipt, nothing recorded',
  async (t) => {
    const city = boundCity(0, '');
    t.same(decideOutbound(city.model, { session_id: 's1', text: 'x', conversation: general }, ctx), {
      ok: true,
      decision: {
        records: [],
        result: {
          kind: 'unsupported',
          receipt: {
            MessageID: '',
            Conversation: general,
            Delivered: false,
            FailureKind: 'unsupported',
            RetryAfter: 0,
            Metadata: {},
          },
        },
      },
    });
  },
);

t.test(
  'queued: the outbound entry and the delivery in one batch; a key answers its delivery again',
  async (t) => {
    const city = boundCity();
    const n = city.model.nextNumber;
    const out = decideOutbound(
      city.model,
      {
        session_id: 's1',
        text: 'hello',
        conversation: general,
        reply_to_message_id: 'm0',
        idempotency_key: 'k1',
      },
      ctx,
    );
    if (!out.ok) throw new Error('refused');
    const deliveryId = `xd-${n}`;
    const entry = {
      ID: `xt-${n + 1}`,
      SchemaVersion: 1,
      Conversation: general,
      Sequence: 1,
      Kind: 'outbound',
      Provenance: 'live',
      ProviderMessageID: '',
      Actor: { id: 's1', display_name: 's1', is_bot: true },
      Text: 'hello',
      ExplicitTarget: '',
      ReplyToMessageID: 'm0',
      Attachments: null,
      SourceSessionID: 's1',
      CreatedAt: now,
      Metadata: { [DELIVERY_ID_KEY]: deliveryId },
    };
    t.same(out.decision.result, { kind: 'queued', deliveryId, entry });
    t.same(out.decision.records, [
      { type: 'extmsg.transcript_appended', actor: 'tester', subject: entry.ID, ts: now, payload: { entry } },
      {
        type: 'extmsg.delivery_queued',
        actor: 'tester',
        subject: deliveryId,
        ts: now,
        payload: {
          id: deliveryId,
          provider: 'slack',
          account_id: 'acme',
          session_id: 's1',
          entry_id: entry.ID,
          binding_generation: 1,
          request: {
            Conversation: general,
            Text: 'hello',
            ReplyToMessageID: 'm0',
            IdempotencyKey: 'k1',
            Metadata: { [DELIVERY_ID_KEY]: deliveryId },
          },
        },
      },
    ]);
    city.attempt(out);
    const same = {
      session_id: 's1',
      text: 'hello',
      conversation: general,
      reply_to_message_id: 'm0',
      idempotency_key: 'k1',
    };
    t.same(decideOutbound(city.model, same, ctx), {
      ok: true,
      decision: { records: [], result: { kind: 'repeat', deliveryId } },
    });
    const mismatch = {
      kind: 'unprocessable',
      message: 'idempotency_mismatch: idempotency_key k1 was used for another message',
      field: 'body.idempotency_key',
    };
    for (const other of [
      { ...same, text: 'bye' },
      { ...same, session_id: 's2' },
      { ...same, reply_to_message_id: 'm9' },
      { ...same, conversation: conv('elsewhere') },
    ])
      t.same(
        decideOutbound(city.model, other, ctx),
        { ok: false, rejection: mismatch },
        JSON.stringify(other),
      );
    // Without a key the delivery id is the key; the next entry follows in the transcript.
    const next = decideOutbound(city.model, { session_id: 's1', text: 'two', conversation: general }, ctx);
    if (!next.ok || next.decision.result.kind !== 'queued') throw new Error('not queued');
    const q = next.decision.records[1]!.payload as {
      id: string;
      request: { IdempotencyKey: string; ReplyToMessageID: string };
    };
    t.same(
      [q.request.IdempotencyKey, q.request.ReplyToMessageID, next.decision.result.entry.Sequence],
      [q.id, '', 2],
    );
  },
);

t.test('an ack records the context and the notice once; a failure retries or dies, once', async (t) => {
  const city = boundCity();
  const queue = () => {
    const out = city.run(
      decideOutbound(city.model, { session_id: 's1', text: 'x', conversation: general }, ctx),
    );
    if (out.kind !== 'queued') throw new Error('not queued');
    return out;
  };
  t.same(decideDeliveryAcked(city.model, { id: 'xd-99', attempt: 1, receipt: receipt('p1') }, ctx), {
    ok: false,
    rejection: { kind: 'not_found', message: 'delivery xd-99 not found' },
  });
  t.same(decideDeliveryFailed(city.model, { id: 'xd-99', attempt: 1, kind: 'k', error: 'e' }, ctx), {
    ok: false,
    rejection: { kind: 'not_found', message: 'delivery xd-99 not found' },
  });
  const first = queue();
  const n = city.model.nextNumber;
  const acked = decideDeliveryAcked(
    city.model,
    { id: first.deliveryId, attempt: 2, receipt: receipt('p1') },
    ctx,
  );
  const context = {
    ID: `xc-${n}`,
    SchemaVersion: 1,
    SessionID: 's1',
    Conversation: general,
    BindingGeneration: 1,
    LastPublishedAt: now,
    LastMessageID: 'p1',
    SourceSessionID: 's1',
    Metadata: {},
  };
  t.same(acked, {
    ok: true,
    decision: {
      result: context,
      records: [
        {
          type: 'extmsg.delivery_acked',
          actor: 'tester',
          subject: first.deliveryId,
          ts: now,
          payload: { id: first.deliveryId, attempt: 2, receipt: receipt('p1'), context },
        },
        {
          type: 'extmsg.outbound',
          actor: 'tester',
          subject: first.entry.ID,
          ts: now,
          payload: { conversation_id: 'general', message_id: 'p1', provider: 'slack', session: 's1' },
        },
      ],
    },
  });
  city.attempt(acked);
  t.same(decideDeliveryAcked(city.model, { id: first.deliveryId, attempt: 3, receipt: receipt('p2') }, ctx), {
    ok: true,
    decision: { records: [], result: context },
  });
  t.same(decideDeliveryFailed(city.model, { id: first.deliveryId, attempt: 3, kind: 'k', error: 'e' }, ctx), {
    ok: true,
    decision: { records: [], result: 'acked' },
  });
  // A second delivery of the same session keeps the context's id.
  const second = queue();
  const failed = decideDeliveryFailed(
    city.model,
    {
      id: second.deliveryId,
      attempt: 1,
      kind: 'transient',
      error: '503',
      retryAt: '2030-05-01T12:01:00.000Z',
    },
    ctx,
  );
  t.same(failed, {
    ok: true,
    decision: {
      result: 'pending',
      records: [
        {
          type: 'extmsg.delivery_failed',
          actor: 'tester',
          subject: second.deliveryId,
          ts: now,
          payload: {
            id: second.deliveryId,
            attempt: 1,
            failure_kind: 'transient',
            error: '503',
            retry_at: '2030-05-01T12:01:00.000Z',
          },
        },
      ],
    },
  });
  city.attempt(failed);
  const again = city.run(
    decideDeliveryAcked(city.model, { id: second.deliveryId, attempt: 2, receipt: receipt('p3') }, ctx),
  );
  t.same([again.ID, again.LastMessageID], [`xc-${n}`, 'p3']);
  const third = queue();
  const dead = decideDeliveryFailed(
    city.model,
    { id: third.deliveryId, attempt: 5, kind: 'permanent', error: '400' },
    ctx,
  );
  t.same(dead.ok && dead.decision, {
    result: 'dead',
    records: [
      {
        type: 'extmsg.delivery_dead',
        actor: 'tester',
        subject: third.deliveryId,
        ts: now,
        payload: { id: third.deliveryId, attempts: 5, failure_kind: 'permanent', error: '400' },
      },
    ],
  });
  city.attempt(dead);
  t.same(decideDeliveryFailed(city.model, { id: third.deliveryId, attempt: 6, kind: 'k', error: 'e' }, ctx), {
    ok: true,
    decision: { records: [], result: 'dead' },
  });
  // A dead delivery acked late answers the context as it stands.
  t.same(decideDeliveryAcked(city.model, { id: third.deliveryId, attempt: 6, receipt: receipt('p4') }, ctx), {
    ok: true,
    decision: { records: [], result: again },
  });
});

t.test('a late ack of a delivery that never succeeded answers the empty context', async (t) => {
  const city = boundCity();
  const out = city.run(
    decideOutbound(city.model, { session_id: 's1', text: 'x', conversation: general }, ctx),
  );
  if (out.kind !== 'queued') throw new Error('not queued');
  city.run(decideDeliveryFailed(city.model, { id: out.deliveryId, attempt: 1, kind: 'k', error: 'e' }, ctx));
  t.same(decideDeliveryAcked(city.model, { id: out.deliveryId, attempt: 2, receipt: receipt('p') }, ctx), {
    ok: true,
    decision: {
      records: [],
      result: {
        ID: '',
        SchemaVersion: 1,
        SessionID: 's1',
        Conversation: general,
        BindingGeneration: 1,
        LastPublishedAt: ZERO_TIME,
        LastMessageID: '',
        SourceSessionID: 's1',
        Metadata: {},
      },
    },
  });
});

t.test('transcript acks: members only, within the head, forward only', async (t) => {
  const city = boundCity();
  t.same(decideTranscriptAck(city.model, { session_id: 's1' }, ctx), {
    ok: false,
    rejection: { kind: 'unprocessable', message: 'conversation is required', field: 'body.conversation' },
  });
  t.same(decideTranscriptAck(city.model, { session_id: 's2', conversation: general }, ctx), {
    ok: false,
    rejection: {
      kind: 'not_found',
      message: 'session s2 is not a participant of conversation slack/acme/team/general',
    },
  });
  t.same(
    decideTranscriptAck(city.model, { session_id: 's1', conversation: general }, ctx),
    {
      ok: true,
      decision: { records: [], result: 0 },
    },
    'an empty transcript: at 0 already',
  );
  for (let i = 0; i < 3; i++)
    city.run(decideOutbound(city.model, { session_id: 's1', text: `m${i}`, conversation: general }, ctx));
  for (const sequence of [-1, 4])
    t.same(decideTranscriptAck(city.model, { session_id: 's1', conversation: general, sequence }, ctx), {
      ok: false,
      rejection: {
        kind: 'unprocessable',
        message: `sequence ${sequence} is outside 0…3`,
        field: 'body.sequence',
      },
    });
  const two = decideTranscriptAck(city.model, { session_id: 's1', conversation: general, sequence: 2 }, ctx);
  t.same(two, {
    ok: true,
    decision: {
      result: 2,
      records: [
        {
          type: 'extmsg.transcript_acked',
          actor: 'tester',
          subject: 's1',
          ts: now,
          payload: { conversation: general, session_id: 's1', sequence: 2 },
        },
      ],
    },
  });
  city.attempt(two);
  for (const sequence of [0, 1, 2])
    t.same(decideTranscriptAck(city.model, { session_id: 's1', conversation: general, sequence }, ctx), {
      ok: true,
      decision: { records: [], result: 2 },
    });
  const head = decideTranscriptAck(city.model, { session_id: 's1', conversation: general }, ctx);
  t.same(head.ok && head.decision.result, 3, 'no sequence: the head');
});
