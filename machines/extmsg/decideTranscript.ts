import type { ExtMsgTranscriptAckBody } from '../../schemas/extmsgBodies.ts';
import { accept, reject, type EventContext, type Outcome } from './decision.ts';
import { conversationKey, conversationText, type ExtmsgModel } from './model.ts';
import { isMember, transcriptHead } from './queries.ts';

/**
 * Moves a session's read position in a conversation to `sequence` (default: the head). The conversation
 * is required (422); the session must take part in it (binding or group participant; 404 otherwise); the
 * sequence must be within 0…head (422). The position only moves forward: a lower ack is accepted and
 * records nothing. Answers the position after the ack. This is a pure function.
 */
export function decideTranscriptAck(
  model: ExtmsgModel,
  body: ExtMsgTranscriptAckBody,
  ctx: EventContext,
): Outcome<number> {
  const c = body.conversation;
  if (!c) return reject('unprocessable', 'conversation is required', 'body.conversation');
  if (!isMember(model, c, body.session_id))
    return reject(
      'not_found',
      `session ${body.session_id} is not a participant of conversation ${conversationText(c)}`,
    );
  const head = transcriptHead(model, c);
  const sequence = body.sequence ?? head;
  if (sequence < 0 || sequence > head)
    return reject('unprocessable', `sequence ${sequence} is outside 0…${head}`, 'body.sequence');
  const current = model.transcripts.get(conversationKey(c))?.acks.get(body.session_id) ?? 0;
  if (sequence <= current) return accept(current);
  return accept(sequence, [
    {
      type: 'extmsg.transcript_acked',
      actor: ctx.actor,
      subject: body.session_id,
      ts: ctx.now,
      payload: { conversation: c, session_id: body.session_id, sequence },
    },
  ]);
}
