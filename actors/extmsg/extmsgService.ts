import type {
  ConversationGroupParticipant,
  ConversationGroupRecord,
  ConversationRef,
  ExtmsgAdapterInfo,
  InboundResult,
  OutboundResult,
  PublishReceipt,
  SessionBindingRecord,
} from '../../schemas/extmsg.ts';
import type {
  ExtMsgAdapterRegisterBody,
  ExtMsgAdapterUnregisterBody,
  ExtMsgBindBody,
  ExtMsgGroupEnsureBody,
  ExtMsgGroupQuery,
  ExtMsgInboundBody,
  ExtMsgOutboundBody,
  ExtMsgParticipantRemoveBody,
  ExtMsgParticipantUpsertBody,
  ExtMsgTranscriptAckBody,
  ExtMsgTranscriptQuery,
  ExtMsgUnbindBody,
} from '../../schemas/extmsgBodies.ts';
import { NotFoundError } from '../runtime/errors.ts';
import { decideRegisterAdapter, decideUnregisterAdapter } from '../../machines/extmsg/decideAdapters.ts';
import { decideBind, decideUnbind } from '../../machines/extmsg/decideBindings.ts';
import {
  decideEnsureGroup,
  decideRemoveParticipant,
  decideUpsertParticipant,
} from '../../machines/extmsg/decideGroups.ts';
import { decideInbound, ZERO_TIME } from '../../machines/extmsg/decideInbound.ts';
import { decideOutbound, DELIVERY_ID_KEY, emptyContext } from '../../machines/extmsg/decideOutbound.ts';
import { decideTranscriptAck } from '../../machines/extmsg/decideTranscript.ts';
import {
  contextKey,
  conversationKey,
  conversationText,
  type DeliveryState,
  type ExtmsgModel,
} from '../../machines/extmsg/model.ts';
import { bindingsOfSession, transcriptPage, type TranscriptPage } from '../../machines/extmsg/queries.ts';
import type { AttemptResult, DeliveryDispatcher } from './deliveryDispatcher.ts';
import type { ExtmsgRunner } from './extmsgRunner.ts';

const ACTOR = 'api';

/** How long `outbound` waits for the first attempt before answering that the delivery is under way. */
export const DEFAULT_ANSWER_WITHIN_MS = 10_000;

/**
 * One city's external messaging: adapters, bindings, groups and participants, transcripts, inbound
 * routing and outbound delivery. Every change is a decision on the city log (see {@link ExtmsgRunner});
 * reads are queries over the folded model. Command methods throw the catalogue errors of their refusals
 * (404, 409, 400, 422) and UnavailableError (503) when the journal cannot append.
 */
export class ExtmsgService {
  constructor(
    readonly city: string,
    private readonly runner: ExtmsgRunner,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly answerWithinMs = DEFAULT_ANSWER_WITHIN_MS,
  ) {}

  /** The folded model; read it, never write it. */
  get model(): Readonly<ExtmsgModel> {
    return this.runner.model;
  }

  /** The city event index the model reflects (`X-GC-Index`). */
  get index(): number {
    return this.runner.index;
  }

  registerAdapter(body: ExtMsgAdapterRegisterBody): Promise<ExtmsgAdapterInfo> {
    return this.runner
      .run((m, ctx) => decideRegisterAdapter(m, body, ctx), ACTOR)
      .then((a) => {
        // A (re-)registered adapter takes the deliveries that waited for it.
        for (const id of this.model.pending) this.dispatcher.schedule(id);
        return { provider: a.provider, account_id: a.account_id, name: a.name };
      });
  }

  async unregisterAdapter(body: ExtMsgAdapterUnregisterBody): Promise<void> {
    await this.runner.run((m, ctx) => decideUnregisterAdapter(m, body, ctx), ACTOR);
  }

  /** Every adapter, by provider then account. */
  adapters(): ExtmsgAdapterInfo[] {
    return [...this.model.adapters.values()]
      .map((a) => ({ provider: a.provider, account_id: a.account_id, name: a.name }))
      .sort((a, b) => a.provider.localeCompare(b.provider) || a.account_id.localeCompare(b.account_id));
  }

  bind(body: ExtMsgBindBody): Promise<SessionBindingRecord> {
    return this.runner.run((m, ctx) => decideBind(m, body, ctx), ACTOR);
  }

  unbind(body: ExtMsgUnbindBody): Promise<SessionBindingRecord[]> {
    return this.runner.run((m, ctx) => decideUnbind(m, body, ctx), ACTOR);
  }

  bindings(sessionId: string): SessionBindingRecord[] {
    return bindingsOfSession(this.model, sessionId);
  }

  ensureGroup(body: ExtMsgGroupEnsureBody): Promise<ConversationGroupRecord> {
    return this.runner.run((m, ctx) => decideEnsureGroup(m, body, ctx), ACTOR);
  }

  /** @throws NotFoundError when no group is rooted at the conversation. */
  group(query: ExtMsgGroupQuery): ConversationGroupRecord {
    const root = conversationOf(query);
    const id = this.model.groupByRoot.get(conversationKey(root));
    if (id === undefined)
      throw new NotFoundError(`group not found for conversation ${conversationText(root)}`);
    return this.model.groups.get(id)!;
  }

  upsertParticipant(body: ExtMsgParticipantUpsertBody): Promise<ConversationGroupParticipant> {
    return this.runner.run((m, ctx) => decideUpsertParticipant(m, body, ctx), ACTOR);
  }

  async removeParticipant(body: ExtMsgParticipantRemoveBody): Promise<void> {
    await this.runner.run((m, ctx) => decideRemoveParticipant(m, body, ctx), ACTOR);
  }

  inbound(body: ExtMsgInboundBody): Promise<InboundResult> {
    return this.runner.run((m, ctx) => decideInbound(m, body, ctx), ACTOR);
  }

  /**
   * Records a session's message and its delivery, then waits for the first attempt (at most
   * `answerWithinMs`): the receipt is the adapter's on success; otherwise `Delivered: false` with the
   * failure kind, while the supervisor keeps retrying (`Metadata["gc.delivery_status"]` says `pending` or
   * `dead`). The delivery's id is in both `Metadata["gc.delivery_id"]`.
   */
  async outbound(body: ExtMsgOutboundBody): Promise<OutboundResult> {
    const decided = await this.runner.run((m, ctx) => decideOutbound(m, body, ctx), ACTOR);
    if (decided.kind === 'unsupported') return unsupportedResult(body, decided.receipt);
    if (decided.kind === 'repeat') return this.#repeatResult(decided.deliveryId);
    const id = decided.deliveryId;
    const first = this.dispatcher.nextResult(id);
    this.dispatcher.schedule(id);
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      first,
      new Promise<undefined>(
        (resolve) => (timer = setTimeout(() => resolve(undefined), this.answerWithinMs)),
      ),
    ]);
    clearTimeout(timer);
    return this.#outboundResult(id, result);
  }

  /** The answer to a repeated key: the first delivery as it stands (its receipt once acknowledged). */
  #repeatResult(id: string): OutboundResult {
    const d = this.model.deliveries.get(id)!;
    const context = this.model.contexts.get(contextKey(d.queued.session_id, d.queued.request.Conversation));
    if (d.status === 'acked' && d.receipt && context)
      return this.#outboundResult(id, { delivered: true, receipt: d.receipt, context });
    const failure = d.lastFailure;
    return this.#outboundResult(
      id,
      failure && {
        delivered: false,
        kind: failure.kind,
        error: failure.error,
        retryAfterNs: 0,
        status: d.status,
      },
    );
  }

  #outboundResult(id: string, result: AttemptResult | undefined): OutboundResult {
    const d = this.model.deliveries.get(id)!;
    const entry = this.model.transcripts
      .get(conversationKey(d.queued.request.Conversation))!
      .entries.find((e) => e.ID === d.queued.entry_id)!;
    if (result?.delivered)
      return { Receipt: result.receipt, DeliveryContext: result.context, TranscriptEntry: entry };
    return {
      Receipt: {
        MessageID: '',
        Conversation: d.queued.request.Conversation,
        Delivered: false,
        FailureKind: result?.kind ?? 'transient',
        RetryAfter: result?.retryAfterNs ?? 0,
        Metadata: { [DELIVERY_ID_KEY]: id, 'gc.delivery_status': d.status },
      },
      DeliveryContext: emptyContext(d),
      TranscriptEntry: entry,
    };
  }

  transcript(query: ExtMsgTranscriptQuery): TranscriptPage {
    return transcriptPage(this.model, conversationOf(query), {
      ...(query.after_sequence !== undefined ? { afterSequence: query.after_sequence } : {}),
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      ...(query.order !== undefined ? { order: query.order } : {}),
    });
  }

  /** Moves a session's read position; resolves with the position after it. */
  ack(body: ExtMsgTranscriptAckBody): Promise<number> {
    return this.runner.run((m, ctx) => decideTranscriptAck(m, body, ctx), ACTOR);
  }

  /** Resolves once delivery `id` is acked or dead. */
  settled(id: string): Promise<DeliveryState['status']> {
    return this.dispatcher.settled(id);
  }

  /** Stops delivering (in-flight publishes are aborted, their outcome left for the next start), then the runner. */
  async stop(): Promise<void> {
    await this.dispatcher.stop();
    await this.runner.stop();
  }
}

/** The answer to an outbound for an adapter without a callback URL: nothing recorded. Pure. */
function unsupportedResult(body: ExtMsgOutboundBody, receipt: PublishReceipt): OutboundResult {
  return {
    Receipt: receipt,
    DeliveryContext: {
      ID: '',
      SchemaVersion: 1,
      SessionID: body.session_id,
      Conversation: receipt.Conversation,
      BindingGeneration: 0,
      LastPublishedAt: ZERO_TIME,
      LastMessageID: '',
      SourceSessionID: body.session_id,
      Metadata: {},
    },
    TranscriptEntry: {
      ID: '',
      SchemaVersion: 0,
      Conversation: receipt.Conversation,
      Sequence: 0,
      Kind: 'outbound',
      Provenance: 'live',
      ProviderMessageID: '',
      Actor: { id: body.session_id, display_name: body.session_id, is_bot: true },
      Text: body.text ?? '',
      ExplicitTarget: '',
      ReplyToMessageID: body.reply_to_message_id ?? '',
      Attachments: null,
      SourceSessionID: body.session_id,
      CreatedAt: ZERO_TIME,
      Metadata: {},
    },
  };
}

/** The conversation a query names (absent fields are empty). This is a pure function. */
function conversationOf(q: ExtMsgGroupQuery & { parent_conversation_id?: string }): ConversationRef {
  return {
    scope_id: q.scope_id ?? '',
    provider: q.provider ?? '',
    account_id: q.account_id ?? '',
    conversation_id: q.conversation_id ?? '',
    ...(q.parent_conversation_id ? { parent_conversation_id: q.parent_conversation_id } : {}),
    kind: q.kind ?? 'room',
  };
}
