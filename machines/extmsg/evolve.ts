import type { JournalEvent } from '../../schemas/event.ts';
import { payloadAs } from '../../schemas/eventDecode.ts';
import type { ConversationTranscriptRecord } from '../../schemas/extmsg.ts';
import {
  adapterKey,
  contextKey,
  conversationKey,
  idNumber,
  type DeliveryState,
  type ExtmsgModel,
  type TranscriptState,
} from './model.ts';

type Undo = () => void;

/** Sets (or, with `undefined`, deletes) `key`, pushing how to take it back when `undos` is given. */
function put<K, V>(map: Map<K, V>, key: K, value: V | undefined, undos?: Undo[]): void {
  if (undos) {
    const had = map.has(key);
    const previous = map.get(key);
    undos.push(() => (had ? map.set(key, previous as V) : map.delete(key)));
  }
  if (value === undefined) map.delete(key);
  else map.set(key, value);
}

function mark(model: ExtmsgModel, id: string, undos?: Undo[]): void {
  const n = idNumber(id);
  if (n === undefined || n < model.nextNumber) return;
  const previous = model.nextNumber;
  model.nextNumber = n + 1;
  undos?.push(() => (model.nextNumber = previous));
}

function transcriptOf(
  model: ExtmsgModel,
  entry: ConversationTranscriptRecord,
  undos?: Undo[],
): TranscriptState {
  const key = conversationKey(entry.Conversation);
  let state = model.transcripts.get(key);
  if (!state) {
    state = { conversation: entry.Conversation, entries: [], inbound: new Map(), acks: new Map() };
    put(model.transcripts, key, state, undos);
  }
  return state;
}

function setDelivery(model: ExtmsgModel, id: string, next: DeliveryState, undos?: Undo[]): void {
  put(model.deliveries, id, next, undos);
  const wasPending = model.pending.has(id);
  // Taking back a delivery that left the queue puts it back in its place: the queue is delivery order.
  const queue = undos && wasPending && next.status !== 'pending' ? [...model.pending] : undefined;
  if (next.status === 'pending') model.pending.add(id);
  else model.pending.delete(id);
  if (!undos) return;
  undos.push(() => {
    if (queue) {
      model.pending.clear();
      for (const queued of queue) model.pending.add(queued);
    } else if (!wasPending) model.pending.delete(id);
  });
}

/** Folds one event; `undos` collects how to take it back (speculative rounds). */
function fold(model: ExtmsgModel, event: JournalEvent, log: string, undos?: Undo[]): void {
  if (event.seq <= model.seq) return;
  const seq = model.seq;
  undos?.push(() => (model.seq = seq));
  switch (event.type) {
    case 'extmsg.adapter_registered': {
      const p = payloadAs(log, event, 'extmsg.adapter_registered');
      put(model.adapters, adapterKey(p.provider, p.account_id), p, undos);
      break;
    }
    case 'extmsg.adapter_removed': {
      const p = payloadAs(log, event, 'extmsg.adapter_removed');
      put(model.adapters, adapterKey(p.provider, p.account_id), undefined, undos);
      break;
    }
    case 'extmsg.binding_recorded': {
      const { binding } = payloadAs(log, event, 'extmsg.binding_recorded');
      const key = conversationKey(binding.Conversation);
      put(model.bindings, binding.ID, binding, undos);
      if (binding.Status === 'active') put(model.activeBinding, key, binding.ID, undos);
      else if (model.activeBinding.get(key) === binding.ID) put(model.activeBinding, key, undefined, undos);
      if ((model.generations.get(key) ?? 0) < binding.BindingGeneration)
        put(model.generations, key, binding.BindingGeneration, undos);
      mark(model, binding.ID, undos);
      break;
    }
    case 'extmsg.group_recorded': {
      const { group } = payloadAs(log, event, 'extmsg.group_recorded');
      put(model.groups, group.ID, group, undos);
      put(model.groupByRoot, conversationKey(group.RootConversation), group.ID, undos);
      mark(model, group.ID, undos);
      break;
    }
    case 'extmsg.participant_recorded': {
      const { participant } = payloadAs(log, event, 'extmsg.participant_recorded');
      let handles = model.participants.get(participant.GroupID);
      if (!handles) put(model.participants, participant.GroupID, (handles = new Map()), undos);
      put(handles, participant.Handle, participant, undos);
      mark(model, participant.ID, undos);
      break;
    }
    case 'extmsg.participant_removed': {
      const p = payloadAs(log, event, 'extmsg.participant_removed');
      const handles = model.participants.get(p.group_id);
      if (handles) put(handles, p.handle, undefined, undos);
      break;
    }
    case 'extmsg.transcript_appended': {
      const { entry, inbound } = payloadAs(log, event, 'extmsg.transcript_appended');
      const state = transcriptOf(model, entry, undos);
      state.entries.push(entry);
      undos?.push(() => state.entries.pop());
      if (inbound) put(state.inbound, entry.ProviderMessageID, { entry, route: inbound }, undos);
      mark(model, entry.ID, undos);
      break;
    }
    case 'extmsg.transcript_acked': {
      const p = payloadAs(log, event, 'extmsg.transcript_acked');
      const state = model.transcripts.get(conversationKey(p.conversation));
      if (state) put(state.acks, p.session_id, p.sequence, undos);
      break;
    }
    case 'extmsg.delivery_queued': {
      const queued = payloadAs(log, event, 'extmsg.delivery_queued');
      setDelivery(model, queued.id, { queued, status: 'pending', attempts: 0, dueAt: event.ts }, undos);
      // A key that is not the delivery's own id is the caller's: a repeat of it answers this delivery.
      const key = queued.request.IdempotencyKey;
      if (key && key !== queued.id) put(model.deliveryByKey, key, queued.id, undos);
      mark(model, queued.id, undos);
      break;
    }
    case 'extmsg.delivery_failed': {
      const p = payloadAs(log, event, 'extmsg.delivery_failed');
      const d = model.deliveries.get(p.id);
      if (d)
        setDelivery(
          model,
          p.id,
          {
            ...d,
            attempts: p.attempt,
            dueAt: p.retry_at,
            lastFailure: { kind: p.failure_kind, error: p.error },
          },
          undos,
        );
      break;
    }
    case 'extmsg.delivery_acked': {
      const p = payloadAs(log, event, 'extmsg.delivery_acked');
      const d = model.deliveries.get(p.id);
      if (!d) break;
      setDelivery(model, p.id, { ...d, status: 'acked', attempts: p.attempt, receipt: p.receipt }, undos);
      put(model.contexts, contextKey(p.context.SessionID, p.context.Conversation), p.context, undos);
      mark(model, p.context.ID, undos);
      // The outbound entry learns the provider's id of the message it became.
      const state = model.transcripts.get(conversationKey(d.queued.request.Conversation));
      const i = state?.entries.findIndex((e) => e.ID === d.queued.entry_id) ?? -1;
      if (state && i >= 0) {
        const before = state.entries[i]!;
        state.entries[i] = { ...before, ProviderMessageID: p.receipt.MessageID };
        undos?.push(() => (state.entries[i] = before));
      }
      break;
    }
    case 'extmsg.delivery_dead': {
      const p = payloadAs(log, event, 'extmsg.delivery_dead');
      const d = model.deliveries.get(p.id);
      if (d)
        setDelivery(
          model,
          p.id,
          {
            ...d,
            status: 'dead',
            attempts: p.attempts,
            lastFailure: { kind: p.failure_kind, error: p.error },
          },
          undos,
        );
      break;
    }
    default:
      break;
  }
  model.seq = event.seq;
}

/**
 * Folds one journal event into the model: the extmsg state events change it, every event advances `seq`.
 * An event at or below `model.seq` is ignored. Deterministic and free of I/O; it mutates `model` in place.
 * @throws DamagedRecordError when a state event's payload does not match its schema (the model then stays
 *   at the event before it).
 */
export function evolve(model: ExtmsgModel, event: JournalEvent, log: string): void {
  if (!event.type.startsWith('extmsg.')) {
    if (event.seq > model.seq) model.seq = event.seq;
    return;
  }
  const undos: Undo[] = [];
  try {
    fold(model, event, log, undos);
  } catch (err) {
    for (const undo of undos.reverse()) undo();
    throw err;
  }
}

/**
 * Folds `events` in order and answers how to take them back out (last first): a decision applied before it
 * is durable (group commit). Same contract as {@link evolve}.
 */
export function evolveUndoable(model: ExtmsgModel, events: readonly JournalEvent[], log: string): () => void {
  const undos: Undo[] = [];
  const undoAll = () => {
    for (const undo of undos.reverse()) undo();
    undos.length = 0;
  };
  try {
    for (const event of events) fold(model, event, log, undos);
  } catch (err) {
    undoAll();
    throw err;
  }
  return undoAll;
}
