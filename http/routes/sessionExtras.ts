import { UnavailableError } from '../../actors/runtime/errors.ts';
import { SessionPending, SessionService, SessionTranscripts } from '../../actors/sessions/index.ts';
import { sessionApiFor } from './sessionsService.ts';
import type { AppDeps } from '../deps.ts';

/** What the transcript, stream and pending routes read of a city's sessions. */
export interface SessionExtras {
  service: SessionService;
  transcripts: SessionTranscripts;
  pending: SessionPending;
}

const extras = new WeakMap<SessionService, SessionExtras>();

/**
 * The transcript and pending readers of a running city's session service (one pair per service).
 * @throws NotFoundError (city not running), UnavailableError (no session service, or one without a runtime
 *   this build can read, e.g. a test stub).
 */
export function sessionExtrasFor(deps: Pick<AppDeps, 'cities'>, cityName: string): SessionExtras {
  const service = sessionApiFor(deps, cityName);
  if (!(service instanceof SessionService))
    throw new UnavailableError(`the session service of city ${cityName} cannot read transcripts`);
  let found = extras.get(service);
  if (!found) {
    found = { service, transcripts: new SessionTranscripts(service), pending: new SessionPending(service) };
    extras.set(service, found);
  }
  return found;
}
