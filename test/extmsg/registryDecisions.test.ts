/**
 * The extmsg deciders of adapters, bindings and groups (machines/extmsg/decideAdapters.ts,
 * decideBindings.ts, decideGroups.ts, queries.ts `groupFor`) driven directly, their records folded as the
 * log runtime would: what each refuses and why, what it records (state event first, then the notice), and
 * what a repeat leaves alone. Expected values worked out by hand from the doc comments.
 */
import t from 'tap';
import {
  decideBind,
  decideEnsureGroup,
  decideRegisterAdapter,
  decideRemoveParticipant,
  decideUnbind,
  decideUnregisterAdapter,
  decideUpsertParticipant,
  groupFor,
} from '../../machines/extmsg/index.ts';
import type { ConversationRef } from '../../schemas/extmsg.ts';
import { EXTMSG_CTX as ctx, EXTMSG_NOW as now, extmsgCity } from '../helpers/extmsgCity.ts';

const CAPS = { SupportsChildConversations: false, SupportsAttachments: false, MaxMessageLength: 0 };

const room = (conversation_id: string, more: Partial<ConversationRef> = {}): ConversationRef => ({
  scope_id: 'team',
  provider: 'slack',
  account_id: 'acme',
  conversation_id,
  kind: 'room',
  ...more,
});

t.test(
  'an adapter: its callback checked and trimmed, its name defaulted, a repeat recording nothing',
  async (t) => {
    const city = extmsgCity();
    for (const callback_url of ['ftp://x', 'not a url', '/relative'])
      t.same(
        decideRegisterAdapter(city.model, { provider: 'slack', account_id: 'acme', callback_url }, ctx),
        {
          ok: false,
          rejection: {
            kind: 'unprocessable',
            message: 'callback_url must be an absolute http or https URL',
            field: 'body.callback_url',
          },
        },
      );
    const body = {
      provider: 'slack',
      account_id: 'acme',
      callback_url: ' https://hook.example/in// ',
      name: '  ',
    };
    const first = decideRegisterAdapter(city.model, body, ctx);
    t.same(first, {
      ok: true,
      decision: {
        result: {
          provider: 'slack',
          account_id: 'acme',
          name: 'slack/acme',
          callback_url: 'https://hook.example/in',
        },
        records: [
          {
            type: 'extmsg.adapter_registered',
            actor: 'tester',
            subject: 'slack/acme',
            ts: now,
            payload: {
              provider: 'slack',
              account_id: 'acme',
              name: 'slack/acme',
              callback_url: 'https://hook.example/in',
            },
          },
          {
            type: 'extmsg.adapter_added',
            actor: 'tester',
            subject: 'slack/acme',
            ts: now,
            payload: { provider: 'slack', account_id: 'acme' },
          },
        ],
      },
    });
    city.attempt(first);
    const again = decideRegisterAdapter(city.model, body, ctx);
    t.same(again.ok && again.decision.records, [], 'the same registration again records nothing');
    const renamed = decideRegisterAdapter(city.model, { ...body, name: ' Acme ', capabilities: CAPS }, ctx);
    t.equal(renamed.ok && renamed.decision.records.length, 2, 'a change is recorded');
    t.same(renamed.ok && renamed.decision.result, {
      provider: 'slack',
      account_id: 'acme',
      name: 'Acme',
      callback_url: 'https://hook.example/in',
      capabilities: CAPS,
    });
    const none = decideRegisterAdapter(city.model, { provider: 'discord', account_id: 'a' }, ctx);
    t.same(none.ok && none.decision.result, {
      provider: 'discord',
      account_id: 'a',
      name: 'discord/a',
      callback_url: '',
    });
  },
);

t.test('unregistering: only a registered adapter, with its notice', async (t) => {
  const city = extmsgCity();
  t.same(decideUnregisterAdapter(city.model, { provider: 'slack', account_id: 'acme' }, ctx), {
    ok: false,
    rejection: { kind: 'not_found', message: 'adapter slack/acme not registered' },
  });
  city.run(decideRegisterAdapter(city.model, { provider: 'slack', account_id: 'acme' }, ctx));
  const out = decideUnregisterAdapter(city.model, { provider: 'slack', account_id: 'acme' }, ctx);
  t.same(out.ok && out.decision.records, [
    {
      type: 'extmsg.adapter_removed',
      actor: 'tester',
      subject: 'slack/acme',
      ts: now,
      payload: { provider: 'slack', account_id: 'acme' },
    },
  ]);
  city.attempt(out);
  t.equal(city.model.adapters.size, 0);
});

t.test('binding: exactly one owner, a conflict for another, a refresh for the same', async (t) => {
  const city = extmsgCity();
  const c = room('general');
  t.same(decideBind(city.model, { session_id: 's1' }, ctx), {
    ok: false,
    rejection: { kind: 'invalid', message: 'conversation is required', field: 'body.conversation' },
  });
  const both = {
    kind: 'invalid',
    message: 'exactly one of session_id and agent_name is required',
    field: 'body.session_id',
  };
  t.same(decideBind(city.model, { conversation: c, session_id: ' ', agent_name: '' }, ctx), {
    ok: false,
    rejection: both,
  });
  t.same(decideBind(city.model, { conversation: c, session_id: 's1', agent_name: 'a' }, ctx), {
    ok: false,
    rejection: both,
  });
  const bound = city.run(
    decideBind(city.model, { conversation: c, session_id: ' s1 ', metadata: { k: 'v' } }, ctx),
  );
  t.same(bound, {
    ID: 'xb-1',
    SchemaVersion: 1,
    Conversation: c,
    SessionID: 's1',
    SessionName: '',
    AgentName: '',
    Status: 'active',
    BoundAt: now,
    ExpiresAt: null,
    BindingGeneration: 1,
    Metadata: { k: 'v' },
  });
  t.same(city.written.map((e) => [e.type, e.subject, e.payload]).slice(-1), [
    ['extmsg.bound', 'xb-1', { conversation_id: 'general', provider: 'slack', session_id: 's1' }],
  ]);
  t.same(decideBind(city.model, { conversation: c, agent_name: 'mayor' }, ctx), {
    ok: false,
    rejection: { kind: 'conflict', message: 'conversation slack/acme/team/general is bound to s1' },
  });
  const refreshed = city.run(decideBind(city.model, { conversation: c, session_id: 's1' }, ctx));
  t.same(
    [refreshed.ID, refreshed.Metadata, refreshed.BindingGeneration],
    ['xb-1', { k: 'v' }, 1],
    'metadata kept',
  );
  const replaced = city.run(decideBind(city.model, { conversation: c, session_id: 's1', metadata: {} }, ctx));
  t.same(replaced.Metadata, {}, 'metadata replaced when given');
  // An agent's binding, ended, then bound again: the next generation.
  const d = room('dm-1', { kind: 'dm' });
  const agent = city.run(decideBind(city.model, { conversation: d, agent_name: 'mayor' }, ctx));
  t.same(city.written.at(-1)?.payload, {
    conversation_id: 'dm-1',
    provider: 'slack',
    session_id: '',
    agent_name: 'mayor',
  });
  t.same(decideBind(city.model, { conversation: d, session_id: 's2' }, ctx), {
    ok: false,
    rejection: { kind: 'conflict', message: 'conversation slack/acme/team/dm-1 is bound to agent mayor' },
  });
  city.run(decideUnbind(city.model, { agent_name: 'mayor' }, ctx));
  const next = city.run(decideBind(city.model, { conversation: d, session_id: 's2' }, ctx));
  t.same(
    [agent.BindingGeneration, next.BindingGeneration, next.ID],
    [1, 2, `xb-${city.model.nextNumber - 1}`],
  );
});

t.test('unbinding: by session or agent, one conversation or all, one notice with the count', async (t) => {
  const city = extmsgCity();
  const [a, b, c] = [room('a'), room('b'), room('c')];
  city.run(decideBind(city.model, { conversation: a, session_id: 's1' }, ctx));
  city.run(decideBind(city.model, { conversation: b, session_id: 's1' }, ctx));
  city.run(decideBind(city.model, { conversation: c, agent_name: 'mayor' }, ctx));
  t.same(decideUnbind(city.model, { session_id: ' ', agent_name: '' }, ctx), {
    ok: false,
    rejection: { kind: 'invalid', message: 'session_id or agent_name is required', field: 'body.session_id' },
  });
  const none = decideUnbind(city.model, { session_id: 's9' }, ctx);
  t.same(none, { ok: true, decision: { records: [], result: [] } });
  const one = decideUnbind(city.model, { session_id: 's1', conversation: b }, ctx);
  t.same(one.ok && one.decision.result.map((x) => [x.Conversation.conversation_id, x.Status]), [
    ['b', 'ended'],
  ]);
  city.attempt(one);
  t.same(city.written.at(-1), {
    type: 'extmsg.unbound',
    actor: 'tester',
    subject: 's1',
    ts: now,
    payload: { count: 1, session_id: 's1' },
    seq: city.model.seq,
  });
  const rest = city.run(decideUnbind(city.model, { session_id: 's1' }, ctx));
  t.same(
    rest.map((x) => x.Conversation.conversation_id),
    ['a'],
  );
  const agent = decideUnbind(city.model, { agent_name: 'mayor' }, ctx);
  t.same(agent.ok && agent.decision.records.map((r) => [r.type, r.subject, r.payload]).at(-1), [
    'extmsg.unbound',
    'mayor',
    { count: 1, session_id: '' },
  ]);
});

t.test('groups: ensured once per root, participants by normalised handle', async (t) => {
  const city = extmsgCity();
  t.same(decideEnsureGroup(city.model, {}, ctx), {
    ok: false,
    rejection: {
      kind: 'unprocessable',
      message: 'root_conversation is required',
      field: 'body.root_conversation',
    },
  });
  const root = room('launch');
  const made = decideEnsureGroup(
    city.model,
    { root_conversation: root, mode: ' ', default_handle: ' Mayor ' },
    ctx,
  );
  t.same(made.ok && made.decision.records.map((r) => [r.type, r.subject, r.payload]).at(-1), [
    'extmsg.group_created',
    'xg-1',
    { conversation_id: 'launch', mode: 'launcher', provider: 'slack' },
  ]);
  const group = city.run(made);
  t.same(group, {
    ID: 'xg-1',
    SchemaVersion: 1,
    RootConversation: root,
    Mode: 'launcher',
    DefaultHandle: 'mayor',
    LastAddressedHandle: '',
    FanoutPolicy: {
      Enabled: false,
      AllowUntargetedPublication: false,
      MaxPeerTriggeredPublishes: 0,
      MaxTotalPeerDeliveries: 0,
    },
    Metadata: {},
  });
  t.same(decideEnsureGroup(city.model, { root_conversation: root, mode: 'other' }, ctx), {
    ok: true,
    decision: { records: [], result: group },
  });
  const other = city.run(
    decideEnsureGroup(
      city.model,
      { root_conversation: room('x'), mode: ' peer ', metadata: { a: 'b' } },
      ctx,
    ),
  );
  t.same([other.Mode, other.Metadata, other.DefaultHandle], ['peer', { a: 'b' }, '']);
  // A thread belongs to the group rooted at its parent, in the same scope, provider and account.
  t.equal(groupFor(city.model, room('t1', { kind: 'thread', parent_conversation_id: 'launch' }))?.ID, 'xg-1');
  t.equal(
    groupFor(city.model, room('t1', { kind: 'thread', parent_conversation_id: 'launch', account_id: 'z' })),
    undefined,
  );
  t.equal(groupFor(city.model, room('t1', { kind: 'thread' })), undefined);

  t.same(decideUpsertParticipant(city.model, { group_id: 'xg-9', handle: 'a', session_id: 's' }, ctx), {
    ok: false,
    rejection: { kind: 'not_found', message: 'group xg-9 not found' },
  });
  t.same(decideUpsertParticipant(city.model, { group_id: 'xg-1', handle: '  ', session_id: 's' }, ctx), {
    ok: false,
    rejection: { kind: 'unprocessable', message: 'handle is empty', field: 'body.handle' },
  });
  const p = city.run(
    decideUpsertParticipant(city.model, { group_id: 'xg-1', handle: ' Bob ', session_id: 's1' }, ctx),
  );
  const id = p.ID;
  t.same(p, {
    ID: id,
    GroupID: 'xg-1',
    Handle: 'bob',
    SessionID: 's1',
    SessionName: '',
    Public: false,
    Metadata: {},
  });
  t.same(city.written.at(-1)?.type, 'extmsg.participant_recorded');
  const again = city.run(
    decideUpsertParticipant(
      city.model,
      { group_id: 'xg-1', handle: 'BOB', session_id: 's2', public: true, metadata: { m: '1' } },
      ctx,
    ),
  );
  t.same(again, {
    ID: id,
    GroupID: 'xg-1',
    Handle: 'bob',
    SessionID: 's2',
    SessionName: '',
    Public: true,
    Metadata: { m: '1' },
  });

  t.same(decideRemoveParticipant(city.model, { group_id: 'xg-9', handle: 'bob' }, ctx), {
    ok: false,
    rejection: { kind: 'not_found', message: 'group xg-9 not found' },
  });
  t.same(decideRemoveParticipant(city.model, { group_id: 'xg-1', handle: 'eve' }, ctx), {
    ok: false,
    rejection: { kind: 'not_found', message: 'participant eve not found in group xg-1' },
  });
  const removed = decideRemoveParticipant(city.model, { group_id: 'xg-1', handle: ' Bob' }, ctx);
  t.same(removed.ok && removed.decision.records, [
    {
      type: 'extmsg.participant_removed',
      actor: 'tester',
      subject: id,
      ts: now,
      payload: { group_id: 'xg-1', handle: 'bob' },
    },
  ]);
  city.attempt(removed);
  t.equal(city.model.participants.get('xg-1')?.get('bob'), undefined);
});
