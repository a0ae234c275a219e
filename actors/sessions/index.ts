/** The sessions family's face: what other families and the HTTP layer may use of it. */
export { SessionPending } from './pending/sessionPending.ts';
export { type ProviderPreset, builtinPresets, mockAgentPath, shellQuote } from './runtime/presets.ts';
export { type MutationContext, SESSION_SERVICE, type SessionApi } from './sessionApi.ts';
export { SessionService } from './sessionService.ts';
export { SessionStream, type SessionStreamOptions } from './sessionStream.ts';
export { sessionServiceFactory } from './startSessionService.ts';
export { staleToolShims, writeToolShims } from './sessionEnv.ts';
export { SessionTranscripts, transcriptFormat } from './transcript/sessionTranscripts.ts';
export { sessionAgent, sessionAgents } from './transcript/subagents.ts';
