/**
 * The answer to an inbound message nobody is routed to (machines/extmsg/decideInbound.ts): upstream answers
 * Go's zero records for the binding and the transcript entry, so strict clients see every field, each empty.
 */
import t from 'tap';
import { decideInbound, decideRegisterAdapter } from '../../machines/extmsg/index.ts';
import type { ConversationRef } from '../../schemas/extmsg.ts';
import { EXTMSG_CTX as ctx, EXTMSG_NOW as now, extmsgCity } from '../helpers/extmsgCity.ts';

t.test('nobody to route to: the zero binding and the zero entry, whole', async (t) => {
  const city = extmsgCity();
  city.run(decideRegisterAdapter(city.model, { provider: 'slack', account_id: 'acme' }, ctx));
  const conversation: ConversationRef = {
    scope_id: 'team',
    provider: 'slack',
    account_id: 'acme',
    conversation_id: 'void',
    kind: 'room',
  };
  const actor = { id: 'u1', display_name: 'U', is_bot: false };
  const message = { provider_message_id: 'm1', conversation, actor, text: 'hello', received_at: now };
  const out = decideInbound(city.model, { message }, ctx);
  if (!out.ok) throw new Error('refused');
  t.same(out.decision.result, {
    Message: message,
    Binding: {
      ID: '',
      SchemaVersion: 0,
      Conversation: conversation,
      SessionID: '',
      SessionName: '',
      AgentName: '',
      Status: '',
      BoundAt: '0001-01-01T00:00:00Z',
      ExpiresAt: null,
      BindingGeneration: 0,
      Metadata: {},
    },
    GroupRoute: { Match: 'no_match', TargetSessionID: '', UpdateCursor: false },
    TranscriptEntry: {
      ID: '',
      SchemaVersion: 0,
      Conversation: conversation,
      Sequence: 0,
      Kind: 'inbound',
      Provenance: 'live',
      ProviderMessageID: '',
      Actor: actor,
      Text: '',
      ExplicitTarget: '',
      ReplyToMessageID: '',
      Attachments: null,
      SourceSessionID: '',
      CreatedAt: '0001-01-01T00:00:00Z',
      Metadata: {},
    },
    TargetSessionID: '',
    TargetAgentName: '',
  });
});
