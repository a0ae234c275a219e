import type {
  ConversationGroupParticipant,
  ConversationGroupRecord,
  ConversationRef,
  ConversationTranscriptRecord,
  SessionBindingRecord,
} from '../../schemas/extmsg.ts';
import { conversationKey, type ExtmsgModel } from './model.ts';

/** The active binding of `conversation`, if any. This is a pure function. */
export function activeBindingFor(
  model: ExtmsgModel,
  conversation: ConversationRef,
): SessionBindingRecord | undefined {
  const id = model.activeBinding.get(conversationKey(conversation));
  return id === undefined ? undefined : model.bindings.get(id);
}

const KINDS = ['room', 'dm', 'thread'] as const;

/**
 * The group `conversation` belongs to: the one rooted at it, else (a thread) the one rooted at its parent
 * in the same scope, provider and account. This is a pure function.
 */
export function groupFor(
  model: ExtmsgModel,
  conversation: ConversationRef,
): ConversationGroupRecord | undefined {
  const own = model.groupByRoot.get(conversationKey(conversation));
  if (own !== undefined) return model.groups.get(own);
  const parent = conversation.parent_conversation_id;
  if (!parent) return undefined;
  for (const kind of KINDS) {
    const id = model.groupByRoot.get(
      conversationKey({
        scope_id: conversation.scope_id,
        provider: conversation.provider,
        account_id: conversation.account_id,
        conversation_id: parent,
        kind,
      }),
    );
    if (id !== undefined) return model.groups.get(id);
  }
  return undefined;
}

/** The participant of `groupId` with `handle` (normalised). This is a pure function. */
export const participantOf = (
  model: ExtmsgModel,
  groupId: string,
  handle: string,
): ConversationGroupParticipant | undefined => model.participants.get(groupId)?.get(handle);

/**
 * True when `sessionId` takes part in `conversation`: it holds its active binding, or it is a participant
 * of its group. This is a pure function.
 */
export function isMember(model: ExtmsgModel, conversation: ConversationRef, sessionId: string): boolean {
  if (activeBindingFor(model, conversation)?.SessionID === sessionId) return true;
  const group = groupFor(model, conversation);
  if (!group) return false;
  for (const p of model.participants.get(group.ID)?.values() ?? [])
    if (p.SessionID === sessionId) return true;
  return false;
}

/** The last sequence of `conversation`'s transcript (0 when empty). This is a pure function. */
export const transcriptHead = (model: ExtmsgModel, conversation: ConversationRef): number =>
  model.transcripts.get(conversationKey(conversation))?.entries.length ?? 0;

/** Every binding of `sessionId`, oldest first. This is a pure function. */
export const bindingsOfSession = (model: ExtmsgModel, sessionId: string): SessionBindingRecord[] =>
  [...model.bindings.values()].filter((b) => b.SessionID === sessionId);

/** A page of a transcript: what `GET /extmsg/transcript` answers. */
export interface TranscriptPage {
  items: ConversationTranscriptRecord[];
  total: number;
  next_cursor?: string;
}

/** The most entries one page holds. */
export const MAX_TRANSCRIPT_PAGE = 500;

/**
 * The entries of `conversation` after `afterSequence`, oldest first (`asc`) or newest first (`desc`), at
 * most `limit` (default 100, capped at 500). `total` counts every entry after the cursor; `next_cursor`
 * (asc only) is the last sequence of a page that did not reach the end. This is a pure function.
 */
export function transcriptPage(
  model: ExtmsgModel,
  conversation: ConversationRef,
  query: { afterSequence?: number; limit?: number; order?: 'asc' | 'desc' },
): TranscriptPage {
  const entries = model.transcripts.get(conversationKey(conversation))?.entries ?? [];
  const after = Math.min(query.afterSequence ?? 0, entries.length);
  const limit = Math.min(query.limit || 100, MAX_TRANSCRIPT_PAGE);
  const rest = entries.length - after;
  if (query.order === 'desc') {
    const items = entries.slice(Math.max(after, entries.length - limit)).reverse();
    return { items, total: rest };
  }
  const items = entries.slice(after, after + limit);
  const page: TranscriptPage = { items, total: rest };
  if (after + limit < entries.length) page.next_cursor = String(after + limit);
  return page;
}
