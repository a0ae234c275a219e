import type {
  ConversationGroupParticipant,
  ConversationGroupRecord,
  ConversationRef,
  ConversationTranscriptRecord,
  DeliveryContextRecord,
  PublishReceipt,
  SessionBindingRecord,
} from '../../schemas/extmsg.ts';
import type {
  ExtmsgAdapterRegisteredPayload,
  ExtmsgDeliveryQueuedPayload,
  InboundRoute,
} from '../../schemas/extmsgEvents.ts';

/** A registered adapter: where outbound messages for its (provider, account) go. */
export type AdapterState = ExtmsgAdapterRegisteredPayload;

/** One conversation's transcript: entries in sequence order (entry n at index n-1) and read positions. */
export interface TranscriptState {
  conversation: ConversationRef;
  entries: ConversationTranscriptRecord[];
  /** Inbound entries by provider message id, with how each was routed (the first result of a duplicate). */
  inbound: Map<string, { entry: ConversationTranscriptRecord; route: InboundRoute }>;
  /** Read position (last acknowledged sequence) by session. */
  acks: Map<string, number>;
}

export type DeliveryStatus = 'pending' | 'acked' | 'dead';

/** An outbound message owed to an adapter, and what became of it. */
export interface DeliveryState {
  queued: ExtmsgDeliveryQueuedPayload;
  status: DeliveryStatus;
  /** Attempts that failed or succeeded so far (journaled). */
  attempts: number;
  /** When the next attempt is due (RFC 3339); the queue time for the first. */
  dueAt: string;
  lastFailure?: { kind: string; error: string };
  receipt?: PublishReceipt;
}

/**
 * The extmsg read model: the fold of the city log's `extmsg.*` state events. Deciders read it; only
 * `evolve` writes it.
 */
export interface ExtmsgModel {
  /** The last log seq folded. */
  seq: number;
  /** The next number of a minted id (`xb-<n>`, `xt-<n>` …): one counter for every kind. */
  nextNumber: number;
  /** By {@link adapterKey}. */
  adapters: Map<string, AdapterState>;
  bindings: Map<string, SessionBindingRecord>;
  /** The active binding of a conversation, by {@link conversationKey}. */
  activeBinding: Map<string, string>;
  /** The highest binding generation of a conversation. */
  generations: Map<string, number>;
  groups: Map<string, ConversationGroupRecord>;
  groupByRoot: Map<string, string>;
  /** By group id, then handle. */
  participants: Map<string, Map<string, ConversationGroupParticipant>>;
  transcripts: Map<string, TranscriptState>;
  deliveries: Map<string, DeliveryState>;
  /** Ids of the deliveries still pending, in queue order. */
  pending: Set<string>;
  /** The delivery each caller's `idempotency_key` queued (never forgotten, as the bead create key). */
  deliveryByKey: Map<string, string>;
  /** By session id and conversation key. */
  contexts: Map<string, DeliveryContextRecord>;
}

/** An empty model, before the first event. This is a pure function. */
export function createModel(): ExtmsgModel {
  return {
    seq: 0,
    nextNumber: 1,
    adapters: new Map(),
    bindings: new Map(),
    activeBinding: new Map(),
    generations: new Map(),
    groups: new Map(),
    groupByRoot: new Map(),
    participants: new Map(),
    transcripts: new Map(),
    deliveries: new Map(),
    pending: new Set(),
    deliveryByKey: new Map(),
    contexts: new Map(),
  };
}

/** The key of an adapter. This is a pure function. */
export const adapterKey = (provider: string, accountId: string): string => `${provider}\u0000${accountId}`;

/** The key of a conversation: every field of its reference. This is a pure function. */
export const conversationKey = (c: ConversationRef): string =>
  JSON.stringify([
    c.scope_id,
    c.provider,
    c.account_id,
    c.conversation_id,
    c.parent_conversation_id ?? '',
    c.kind,
  ]);

/** The key of a delivery context. This is a pure function. */
export const contextKey = (sessionId: string, c: ConversationRef): string =>
  `${sessionId}\u0000${conversationKey(c)}`;

/** A handle as groups compare it: trimmed, lower-case. This is a pure function. */
export const normalizeHandle = (handle: string): string => handle.trim().toLowerCase();

/** A conversation as text for messages: `provider/account/scope/conversation`. This is a pure function. */
export const conversationText = (c: ConversationRef): string =>
  `${c.provider}/${c.account_id}/${c.scope_id}/${c.conversation_id}`;

/** The number in a minted id (`xt-12` → 12), if it is one. This is a pure function. */
export function idNumber(id: string): number | undefined {
  const m = /^x[a-z]-(\d+)$/.exec(id);
  return m ? Number(m[1]) : undefined;
}
