/** The extmsg family's pure side: the read model, its fold, the deciders and the queries. */
export * from './model.ts';
export * from './decision.ts';
export { evolve, evolveUndoable } from './evolve.ts';
export { decideRegisterAdapter, decideUnregisterAdapter } from './decideAdapters.ts';
export { decideBind, decideUnbind } from './decideBindings.ts';
export { decideEnsureGroup, decideRemoveParticipant, decideUpsertParticipant } from './decideGroups.ts';
export { decideInbound, inboundResult, ZERO_TIME } from './decideInbound.ts';
export {
  decideDeliveryAcked,
  decideDeliveryFailed,
  decideOutbound,
  DELIVERY_ID_KEY,
  emptyContext,
  type OutboundDecision,
} from './decideOutbound.ts';
export { decideTranscriptAck } from './decideTranscript.ts';
export * from './queries.ts';
