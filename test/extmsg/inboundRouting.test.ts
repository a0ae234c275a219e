/**
 * Inbound messages through the pure decider (machines/extmsg/decideInbound.ts): what it refuses, the routing
 * precedence (binding, explicit target, last addressed, default, none), the transcript entry and notices it
 * records, the group's last-addressed handle it moves, and a duplicate answered with the first result.
 * Expected values worked out by hand from the doc comments.
 */
import t from 'tap';
import {
  decideBind,
  decideEnsureGroup,
  decideInbound,
  decideRegisterAdapter,
  decideUpsertParticipant,
  ZERO_TIME,
} from '../../machines/extmsg/index.ts';
import type { ConversationRef, ExternalInboundMessage } from '../../schemas/extmsg.ts';
import { EXTMSG_CTX as ctx, EXTMSG_NOW as now, extmsgCity, type ExtmsgCity } from '../helpers/extmsgCity.ts';

const conv = (conversation_id: string, more: Partial<ConversationRef> = {}): ConversationRef => ({
  scope_id: 'team',
  provider: 'slack',
  account_id: 'acme',
  conversation_id,
  kind: 'room',
  ...more,
});
const actor = { id: 'u1', display_name: 'Uma', is_bot: false };
const message = (
  id: string,
  c: ConversationRef,
  more: Partial<ExternalInboundMessage> = {},
): ExternalInboundMessage => ({
  provider_message_id: id,
  conversation: c,
  actor,
  text: `  text of ${id}  `,
  received_at: now,
  ...more,
});

function cityWithAdapter(): ExtmsgCity {
  const city = extmsgCity();
  city.run(decideRegisterAdapter(city.model, { provider: 'slack', account_id: 'acme' }, ctx));
  return city;
}

t.test('refused: a raw payload, an unknown adapter, an empty provider message id', async (t) => {
  const city = cityWithAdapter();
  t.same(decideInbound(city.model, {}, ctx), {
    ok: false,
    rejection: {
      kind: 'unprocessable',
      message: 'raw payloads need an in-process adapter; HTTP adapters post a normalised message',
      field: 'body.message',
    },
  });
  t.same(decideInbound(city.model, { message: message('m1', conv('a', { account_id: 'other' })) }, ctx), {
    ok: false,
    rejection: { kind: 'not_found', message: 'adapter slack/other not registered' },
  });
  t.same(decideInbound(city.model, { message: message('', conv('a')) }, ctx), {
    ok: false,
    rejection: {
      kind: 'unprocessable',
      message: 'provider_message_id is empty',
      field: 'body.message.provider_message_id',
    },
  });
});

t.test('no binding and no group: answered with an empty target, nothing stored', async (t) => {
  const city = cityWithAdapter();
  const before = city.model.seq;
  const out = decideInbound(city.model, { message: message('m1', conv('lonely')) }, ctx);
  t.ok(out.ok);
  if (!out.ok) return;
  t.same(out.decision.records, []);
  const r = out.decision.result;
  t.same(
    [r.TargetSessionID, r.TargetAgentName, r.GroupRoute],
    ['', '', { Match: 'no_match', TargetSessionID: '', UpdateCursor: false }],
  );
  t.same(
    [r.TranscriptEntry.ID, r.TranscriptEntry.Sequence, r.TranscriptEntry.CreatedAt, r.TranscriptEntry.Text],
    ['', 0, ZERO_TIME, ''],
  );
  t.same(
    [r.Binding.ID, r.Binding.Status, r.Binding.BoundAt, r.Binding.SchemaVersion],
    ['', '', ZERO_TIME, 0],
  );
  city.attempt(out);
  t.equal(city.model.seq, before);
});

t.test(
  'a binding routes first: the entry, the notice with the target, a duplicate answered alike',
  async (t) => {
    const city = cityWithAdapter();
    const c = conv('general');
    const binding = city.run(decideBind(city.model, { conversation: c, session_id: 's1' }, ctx));
    const out = decideInbound(city.model, { message: message('m1', c, { explicit_target: 'Bob' }) }, ctx);
    if (!out.ok) throw new Error('refused');
    const entryId = `xt-${city.model.nextNumber}`;
    t.same(
      out.decision.records.map((r) => [r.type, r.subject]),
      [
        ['extmsg.transcript_appended', entryId],
        ['extmsg.inbound', entryId],
      ],
    );
    t.same(out.decision.records[1]!.payload, {
      actor: 'u1',
      conversation_id: 'general',
      provider: 'slack',
      target_session: 's1',
    });
    const r = out.decision.result;
    t.same(r.Binding, binding);
    t.same(r.GroupRoute, { Match: '', TargetSessionID: '', UpdateCursor: false });
    t.same(r.TranscriptEntry, {
      ID: entryId,
      SchemaVersion: 1,
      Conversation: c,
      Sequence: 1,
      Kind: 'inbound',
      Provenance: 'live',
      ProviderMessageID: 'm1',
      Actor: actor,
      Text: 'text of m1',
      ExplicitTarget: 'Bob',
      ReplyToMessageID: '',
      Attachments: null,
      SourceSessionID: '',
      CreatedAt: now,
      Metadata: {},
    });
    city.attempt(out);
    const dup = decideInbound(city.model, { message: message('m1', c, { text: 'changed' }) }, ctx);
    t.same(dup, { ok: true, decision: { records: [], result: r } }, 'the first result, nothing recorded');
    const second = city.run(
      decideInbound(city.model, { message: message('m2', c, { reply_to_message_id: 'm1' }) }, ctx),
    );
    t.same(
      [
        second.TranscriptEntry.Sequence,
        second.TranscriptEntry.ReplyToMessageID,
        second.TranscriptEntry.ExplicitTarget,
      ],
      [2, 'm1', ''],
    );
    // An agent's binding names the agent in the notice.
    const d = conv('dm', { kind: 'dm' });
    city.run(decideBind(city.model, { conversation: d, agent_name: 'mayor' }, ctx));
    const toAgent = city.run(decideInbound(city.model, { message: message('m3', d) }, ctx));
    t.same([toAgent.TargetSessionID, toAgent.TargetAgentName], ['', 'mayor']);
    t.same(city.written.at(-1)?.payload, {
      actor: 'u1',
      conversation_id: 'dm',
      provider: 'slack',
      target_session: '',
      target_agent: 'mayor',
    });
  },
);

t.test('a group routes by explicit target, then last addressed, then default', async (t) => {
  const city = cityWithAdapter();
  const root = conv('launch');
  const group = city.run(
    decideEnsureGroup(city.model, { root_conversation: root, default_handle: 'mayor' }, ctx),
  );
  for (const [handle, session] of [
    ['mayor', 's-mayor'],
    ['bob', 's-bob'],
  ] as const)
    city.run(decideUpsertParticipant(city.model, { group_id: group.ID, handle, session_id: session }, ctx));
  const send = (id: string, more: Partial<ExternalInboundMessage> = {}, c = root) =>
    decideInbound(city.model, { message: message(id, c, more) }, ctx);

  const byDefault = send('m1');
  if (!byDefault.ok) throw new Error('refused');
  t.same(byDefault.decision.result.GroupRoute, {
    Match: 'default',
    TargetSessionID: 's-mayor',
    UpdateCursor: false,
  });
  t.same(byDefault.decision.result.Binding.ID, '', 'no binding: the zero binding');
  t.same(
    byDefault.decision.records.map((r) => r.type),
    ['extmsg.transcript_appended', 'extmsg.inbound'],
  );
  city.attempt(byDefault);

  const explicit = send('m2', { explicit_target: ' BOB ' });
  if (!explicit.ok) throw new Error('refused');
  t.same(explicit.decision.result.GroupRoute, {
    Match: 'explicit_target',
    TargetSessionID: 's-bob',
    UpdateCursor: true,
  });
  t.same(
    explicit.decision.records.map((r) => r.type),
    ['extmsg.transcript_appended', 'extmsg.group_recorded', 'extmsg.inbound'],
  );
  t.same(explicit.decision.records[1]!.payload, { group: { ...group, LastAddressedHandle: 'bob' } });
  city.attempt(explicit);

  const again = send('m3', { explicit_target: 'bob' });
  t.same(
    again.ok && again.decision.records.map((r) => r.type),
    ['extmsg.transcript_appended', 'extmsg.inbound'],
    'already last addressed',
  );
  city.attempt(again);

  const last = send('m4', { explicit_target: 'nobody' });
  t.same(last.ok && last.decision.result.GroupRoute, {
    Match: 'last_addressed',
    TargetSessionID: 's-bob',
    UpdateCursor: false,
  });
  city.attempt(last);
  // A thread under the root belongs to the root's group.
  const thread = send('m5', {}, conv('t1', { kind: 'thread', parent_conversation_id: 'launch' }));
  t.same(thread.ok && thread.decision.result.TargetSessionID, 's-bob');
  t.same(
    thread.ok && thread.decision.result.TranscriptEntry.Sequence,
    1,
    'the thread has its own transcript',
  );
});

t.test('a group with nobody to route to answers no match and stores nothing', async (t) => {
  const city = cityWithAdapter();
  const root = conv('empty');
  const group = city.run(
    decideEnsureGroup(city.model, { root_conversation: root, default_handle: 'ghost' }, ctx),
  );
  const out = decideInbound(city.model, { message: message('m1', root, { explicit_target: 'ghost' }) }, ctx);
  t.same(out.ok && out.decision.records, []);
  t.same(out.ok && out.decision.result.GroupRoute, {
    Match: 'no_match',
    TargetSessionID: '',
    UpdateCursor: false,
  });
  city.run(
    decideUpsertParticipant(city.model, { group_id: group.ID, handle: 'ghost', session_id: 's-g' }, ctx),
  );
  const now2 = decideInbound(city.model, { message: message('m1', root) }, ctx);
  t.same(
    now2.ok && now2.decision.result.GroupRoute.Match,
    'default',
    'the same id is new while nothing was stored',
  );
});
