import { captureCursor } from '../runtime/cursor.ts';
import { InternalError, isGcError, UnavailableError } from '../runtime/errors.ts';
import { CITY_UNREGISTER_FAILED } from './reconcile.ts';
import type { AsyncAccepted } from './supervisorApi.ts';
import type { SupervisorCore } from './supervisorCore.ts';

/**
 * `POST /v0/city/{cityName}/unregister`: records `request.accepted` in the supervisor's log, then
 * `city.unregister_requested` in the city's, then removes the registry entry, and answers; the reconciler
 * (poked at once) stops the controller and records the terminal event before the city's log leaves
 * LiveCities. The city directory is never touched.
 *
 * The request is made durable first so that no failure can leave a city unregistered without a request:
 * if the city's log then refuses `city.unregister_requested`, the city is untouched, the request gets its
 * `request.failed` (here, or from the reconciler if the supervisor's log refuses that too) and the client
 * gets the journal's 503.
 * @throws NotFoundError 404 (not registered), ConflictError 409 (an operation is in progress),
 *   UnavailableError 503, InternalError 500 (registry write failed; the request still completes).
 */
export async function unregisterCity(core: SupervisorCore, name: string): Promise<AsyncAccepted> {
  if (!core.log.running) throw new UnavailableError('supervisor is stopping', 'unavailable');
  // Refused (404 not registered, 409 in progress) or the path is claimed, in one synchronous step.
  const path = core.claims.claim({ op: 'unregister', name });
  try {
    // The policy found the city in this same synchronous step; the check is for the type.
    const city = core.cities.get(name);
    if (!city) throw new InternalError(`unregistering ${name}: the city vanished`);
    const event_cursor = await captureCursor(core.live.logs());
    const request_id = core.newRequestId();
    await core.log.accept({ request_id, operation: 'city.unregister', name, path });
    try {
      await city.send({ type: 'UNREGISTER' });
    } catch (err) {
      const message = `recording city.unregister_requested: ${(err as Error).message}`;
      // Best effort: when the supervisor's log refuses this too, the reconciler fails the request later.
      await core.log.fail(request_id, CITY_UNREGISTER_FAILED, message).catch(() => undefined);
      throw err;
    }
    try {
      await core.registry.remove(name);
    } catch (err) {
      // The request is durable: the reconciler retries the removal and still records its terminal event.
      throw new InternalError(`removing ${name} from the registry: ${(err as Error).message}`, {
        cause: err,
      });
    }
    return { request_id, event_cursor };
  } catch (err) {
    throw isGcError(err)
      ? err
      : new InternalError(`unregistering ${name}: ${(err as Error).message}`, { cause: err });
  } finally {
    // Woken only once the claim is gone: the reconciler leaves claimed paths to their handler.
    core.claims.release(path);
    core.wake();
  }
}
