import * as Flags from '@oclif/core/flags';
import type { ConversationKind, ConversationRef } from '../schemas/extmsg.ts';

/** `/v0/city/{city}/extmsg/<rest>`. Pure. */
export const extmsgPath = (city: string, rest: string): string =>
  `/v0/city/${encodeURIComponent(city)}/extmsg/${rest}`;

/** The flags that name a conversation (upstream's ConversationRef). */
export const conversationFlags = {
  provider: Flags.string({ description: 'chat provider key of the conversation', required: true }),
  account: Flags.string({ description: 'adapter account of the conversation', required: true }),
  conversation: Flags.string({ description: 'conversation (channel, DM or thread) id', required: true }),
  scope: Flags.string({ description: 'workspace or server scope of the conversation', default: '' }),
  kind: Flags.string({
    description: 'conversation kind',
    options: ['room', 'dm', 'thread'],
    default: 'room',
  }),
  parent: Flags.string({ description: 'parent conversation of a thread' }),
};

/** The conversation the flags name. Pure. */
export function conversationOf(flags: {
  provider: string;
  account: string;
  conversation: string;
  scope: string;
  kind: string;
  parent?: string;
}): ConversationRef {
  return {
    scope_id: flags.scope,
    provider: flags.provider,
    account_id: flags.account,
    conversation_id: flags.conversation,
    kind: flags.kind as ConversationKind,
    ...(flags.parent ? { parent_conversation_id: flags.parent } : {}),
  };
}

/** The same conversation as query parameters (GET /extmsg/transcript). Pure. */
export function conversationQuery(c: ConversationRef): Record<string, string | undefined> {
  return {
    scope_id: c.scope_id,
    provider: c.provider,
    account_id: c.account_id,
    conversation_id: c.conversation_id,
    kind: c.kind,
    parent_conversation_id: c.parent_conversation_id,
  };
}
