/**
 * The extmsg fold (machines/extmsg/evolve.ts): what a history of every state event leaves in the model,
 * events it ignores, a damaged record that changes nothing, and `evolveUndoable`, whose undo must give back
 * exactly the model before the batch (group commit takes back a batch that did not become durable).
 */
import t from 'tap';
import { DamagedRecordError } from '../../actors/runtime/damagedRecords.ts';
import {
  createModel,
  decideBind,
  decideDeliveryAcked,
  decideDeliveryFailed,
  decideEnsureGroup,
  decideInbound,
  decideOutbound,
  decideRegisterAdapter,
  decideRemoveParticipant,
  decideTranscriptAck,
  decideUnbind,
  decideUnregisterAdapter,
  decideUpsertParticipant,
  evolve,
  evolveUndoable,
  type ExtmsgModel,
} from '../../machines/extmsg/index.ts';
import type { JournalEvent } from '../../schemas/event.ts';
import type { ConversationRef } from '../../schemas/extmsg.ts';
import { EXTMSG_CTX as ctx, EXTMSG_NOW as now, extmsgCity } from '../helpers/extmsgCity.ts';

const conv = (conversation_id: string, more: Partial<ConversationRef> = {}): ConversationRef => ({
  scope_id: 'team',
  provider: 'slack',
  account_id: 'acme',
  conversation_id,
  kind: 'room',
  ...more,
});
const receipt = (MessageID: string, c: ConversationRef) => ({
  MessageID,
  Conversation: c,
  Delivered: true,
  FailureKind: '',
  RetryAfter: 0,
  Metadata: {},
});
const RETRY = '2030-05-01T12:05:00.000Z';

/** A history that records every extmsg state event, through the deciders. */
function history() {
  const city = extmsgCity();
  const general = conv('general');
  const launch = conv('launch');
  city.run(
    decideRegisterAdapter(
      city.model,
      { provider: 'slack', account_id: 'acme', callback_url: 'http://h' },
      ctx,
    ),
  );
  city.run(decideRegisterAdapter(city.model, { provider: 'irc', account_id: 'x' }, ctx));
  city.run(decideUnregisterAdapter(city.model, { provider: 'irc', account_id: 'x' }, ctx));
  const binding = city.run(decideBind(city.model, { conversation: general, session_id: 's1' }, ctx));
  const group = city.run(
    decideEnsureGroup(city.model, { root_conversation: launch, default_handle: 'bob' }, ctx),
  );
  city.run(
    decideUpsertParticipant(city.model, { group_id: group.ID, handle: 'bob', session_id: 's-bob' }, ctx),
  );
  city.run(
    decideUpsertParticipant(city.model, { group_id: group.ID, handle: 'eve', session_id: 's-eve' }, ctx),
  );
  city.run(decideRemoveParticipant(city.model, { group_id: group.ID, handle: 'eve' }, ctx));
  city.run(decideInbound(city.model, { message: inbound('m1', general) }, ctx));
  city.run(decideInbound(city.model, { message: inbound('m2', launch, 'Bob') }, ctx));
  const send = (text: string, key?: string) => {
    const out = city.run(
      decideOutbound(
        city.model,
        { session_id: 's1', text, conversation: general, idempotency_key: key },
        ctx,
      ),
    );
    if (out.kind !== 'queued') throw new Error('not queued');
    return out;
  };
  const a = send('a', 'key-a');
  const b = send('b');
  const c = send('c');
  city.run(
    decideDeliveryFailed(
      city.model,
      { id: a.deliveryId, attempt: 1, kind: 'transient', error: '503', retryAt: RETRY },
      ctx,
    ),
  );
  city.run(
    decideDeliveryAcked(city.model, { id: a.deliveryId, attempt: 2, receipt: receipt('p-a', general) }, ctx),
  );
  city.run(
    decideDeliveryFailed(city.model, { id: b.deliveryId, attempt: 3, kind: 'permanent', error: '400' }, ctx),
  );
  city.run(decideTranscriptAck(city.model, { session_id: 's1', conversation: general, sequence: 2 }, ctx));
  city.fold([{ type: 'session.woke', actor: 'x', payload: {} }]);
  city.run(decideUnbind(city.model, { session_id: 's1' }, ctx));
  return { city, general, launch, binding, group, a, b, c };
}

function inbound(id: string, c: ConversationRef, explicit_target?: string) {
  return {
    provider_message_id: id,
    conversation: c,
    actor: { id: 'u1', display_name: 'U', is_bot: false },
    text: id,
    received_at: now,
    ...(explicit_target ? { explicit_target } : {}),
  };
}

/** The model as text, Map and Set order kept (the pending queue's order is its delivery order). */
const text = (m: ExtmsgModel) =>
  JSON.stringify(m, (_k, v: unknown) =>
    v instanceof Map ? { map: [...v.entries()] } : v instanceof Set ? { set: [...v] } : v,
  );

t.test('a history folds into the model its records describe', async (t) => {
  const { city, general, launch, binding, group, a, b, c } = history();
  const m = city.model;
  t.same([...m.adapters.keys()], ['slack\u0000acme'], 'the removed adapter is gone');
  t.same(m.bindings.get(binding.ID)?.Status, 'ended');
  t.equal(m.activeBinding.size, 0, 'an ended binding is no longer active');
  t.same([...m.generations.values()], [1], 'the generation stays after the end');
  t.same([...(m.participants.get(group.ID)?.keys() ?? [])], ['bob']);
  t.equal(m.groups.get(group.ID)?.LastAddressedHandle, 'bob');
  const tr = m.transcripts.get(JSON.stringify(['team', 'slack', 'acme', 'general', '', 'room']))!;
  t.same(tr.conversation, general);
  t.same(
    tr.entries.map((e) => [e.Kind, e.Sequence, e.ProviderMessageID]),
    [
      ['inbound', 1, 'm1'],
      ['outbound', 2, 'p-a'],
      ['outbound', 3, ''],
      ['outbound', 4, ''],
    ],
    'the acked outbound entry learned its provider id',
  );
  t.same([...tr.inbound.keys()], ['m1']);
  t.same([...tr.acks], [['s1', 2]]);
  t.ok(m.transcripts.get(JSON.stringify(['team', 'slack', 'acme', launch.conversation_id, '', 'room'])));
  const da = m.deliveries.get(a.deliveryId)!;
  t.same(
    [da.status, da.attempts, da.dueAt, da.lastFailure, da.receipt?.MessageID],
    ['acked', 2, RETRY, { kind: 'transient', error: '503' }, 'p-a'],
  );
  const db = m.deliveries.get(b.deliveryId)!;
  t.same(
    [db.status, db.attempts, db.dueAt, db.lastFailure],
    ['dead', 3, now, { kind: 'permanent', error: '400' }],
  );
  t.same([...m.pending], [c.deliveryId], 'only the untouched delivery is pending');
  t.same([...m.deliveryByKey], [['key-a', a.deliveryId]], 'a delivery’s own id is no caller key');
  t.same(
    [...m.contexts.values()].map((x) => [x.SessionID, x.LastMessageID]),
    [['s1', 'p-a']],
  );
  t.equal(m.seq, city.written.length);
  t.equal(m.nextNumber, 14, 'one past the last id minted: the context xc-13, named only in its payload');
});

t.test('events at or below the seq are ignored; other families only move the seq forward', async (t) => {
  const { city } = history();
  const model = createModel();
  for (const e of city.written) evolve(model, e, 'l');
  const before = text(model);
  for (const e of city.written) evolve(model, e, 'l');
  t.equal(text(model), before, 'the whole log again changes nothing');
  evolve(model, { seq: 3, type: 'session.woke', ts: now, actor: 'x', payload: {} }, 'l');
  t.equal(model.seq, city.written.length, 'an older event of another family leaves the seq');
  evolve(model, { seq: model.seq + 5, type: 'session.woke', ts: now, actor: 'x', payload: {} }, 'l');
  t.equal(model.seq, city.written.length + 5);
  evolve(model, { seq: model.seq + 1, type: 'extmsg.bound', ts: now, actor: 'x', payload: {} }, 'l');
  t.equal(model.seq, city.written.length + 6, 'a notice moves the seq and nothing else');
});

t.test('a damaged record throws and leaves the model as it was', async (t) => {
  const { city } = history();
  const before = text(city.model);
  for (const type of ['extmsg.binding_recorded', 'extmsg.delivery_queued', 'extmsg.adapter_registered']) {
    const damaged = {
      seq: city.model.seq + 1,
      type,
      ts: now,
      actor: 'x',
      payload: { nope: 1 },
    } as JournalEvent;
    t.throws(() => evolve(city.model, damaged, 'city-log'), DamagedRecordError, type);
    t.equal(text(city.model), before, `${type}: nothing changed`);
  }
});

t.test('evolveUndoable: the same model as evolve, and its undo gives back the one before', async (t) => {
  const { city } = history();
  const events = city.written;
  for (let size = 1; size <= 4; size++) {
    for (let start = 0; start + size <= events.length; start++) {
      const model = createModel();
      for (const e of events.slice(0, start)) evolve(model, e, 'l');
      const before = text(model);
      const undo = evolveUndoable(model, events.slice(start, start + size), 'l');
      const folded = createModel();
      for (const e of events.slice(0, start + size)) evolve(folded, e, 'l');
      const after = text(folded);
      if (text(model) !== after) {
        t.equal(text(model), after, `events ${start + 1}…${start + size}: as evolve folds them`);
        return;
      }
      undo();
      if (text(model) !== before) {
        t.equal(text(model), before, `events ${start + 1}…${start + size}: undone`);
        return;
      }
      undo();
      t.equal(text(model), before, 'a second undo does nothing more');
    }
  }
  t.pass('every batch of 1 to 4 events folded and undone exactly');
});

t.test('a batch with a damaged record is taken back whole', async (t) => {
  const { city } = history();
  const model = createModel();
  const events = city.written;
  for (const e of events.slice(0, 10)) evolve(model, e, 'l');
  const before = text(model);
  const damaged = {
    seq: 12,
    type: 'extmsg.group_recorded',
    ts: now,
    actor: 'x',
    payload: {},
  } as JournalEvent;
  t.throws(() => evolveUndoable(model, [events[10]!, damaged], 'l'), DamagedRecordError);
  t.equal(text(model), before);
});
