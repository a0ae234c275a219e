import { Type, type Static, type TProperties } from 'typebox';
import { named } from './named.ts';

/**
 * The events of a city's workspace services (ours: upstream records none; served only with
 * `include=internal`, docs/compatibility.md). They are notices of the supervised processes' lives, written
 * on the city log as they happen; nothing folds them back into state (a service's state is its live process).
 */

const closed = <P extends TProperties>(id: string, props: P) =>
  named(Type.Object(props, { $id: id, additionalProperties: false }));

/** `service.started`: a service process was spawned (`attempt` counts the spawns since the city started). */
export const ServiceStartedPayload = closed('ServiceStartedPayload', {
  service: Type.String(),
  pid: Type.Integer(),
  attempt: Type.Integer({ minimum: 1 }),
});
export type ServiceStartedPayload = Static<typeof ServiceStartedPayload>;

/** `service.ready`: the process accepts connections on its socket (and its health path answered 2xx). */
export const ServiceReadyPayload = closed('ServiceReadyPayload', {
  service: Type.String(),
  pid: Type.Integer(),
});

/**
 * `service.exited`: the process died or never became ready; it is started again after `restart_in_ms`
 * (exponential backoff over the consecutive failures, `failures`).
 */
export const ServiceExitedPayload = closed('ServiceExitedPayload', {
  service: Type.String(),
  pid: Type.Integer(),
  exit_code: Type.Union([Type.Integer(), Type.Null()]),
  signal: Type.Union([Type.String(), Type.Null()]),
  reason: Type.String(),
  failures: Type.Integer({ minimum: 1 }),
  restart_in_ms: Type.Integer({ minimum: 0 }),
});
export type ServiceExitedPayload = Static<typeof ServiceExitedPayload>;

/** `service.stopped`: the supervisor stopped the process (a restart asked through the API, or the city stopping). */
export const ServiceStoppedPayload = closed('ServiceStoppedPayload', {
  service: Type.String(),
  reason: Type.Union([Type.Literal('restart'), Type.Literal('city_stop')]),
});

/** The workspace-service event types and their payloads (spread into `OUR_EVENT_PAYLOADS`). */
export const WORKSPACE_SERVICE_PAYLOADS = {
  'service.started': ServiceStartedPayload,
  'service.ready': ServiceReadyPayload,
  'service.exited': ServiceExitedPayload,
  'service.stopped': ServiceStoppedPayload,
} as const;
