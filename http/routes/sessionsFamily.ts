import { sessionServiceFactory } from '../../actors/sessions/index.ts';
import type { ServedFamily } from '../family.ts';
import { sessionPendingRoutes } from './sessionPending.ts';
import { sessionRoutes } from './sessions.ts';
import { sessionStreamRoutes } from './sessionStream.ts';
import { sessionTranscriptRoutes } from './sessionTranscript.ts';

/** The sessions family served: the session service, and its routes (sessions, transcripts, streams, pending interactions). */
export const sessionsFamily: ServedFamily = {
  name: 'sessions',
  services: [sessionServiceFactory()],
  routes(scope, deps) {
    sessionRoutes(scope, deps);
    sessionTranscriptRoutes(scope, deps);
    sessionStreamRoutes(scope, deps);
    sessionPendingRoutes(scope, deps);
  },
};
