import type { Static } from 'typebox';
import * as P from './eventPayloads.ts';
import type { NamedSchema } from './named.ts';
import * as O from './ourEventPayloads.ts';
import { EXTMSG_STATE_PAYLOADS } from './extmsgEvents.ts';
import { WORKSPACE_SERVICE_PAYLOADS } from './workspaceServiceEvents.ts';
import { ORDER_STATE_PAYLOADS } from './orderEvents.ts';
import { CONFIG_PAYLOADS } from './configEvents.ts';
import { CLUSTER_PAYLOADS } from './clusterEvents.ts';
import { SessionResponse, SubmissionCapabilities, SubmitIntent } from './sessions.ts';
import { STORED_PAYLOADS } from './storedEventPayloads.ts';

/**
 * The registered event types and their payload schemas: the discriminator table of the typed envelopes.
 * A type listed here gets its own envelope variant (payload checked and normalised on the wire); any other
 * type is a Custom event whose payload passes through unchanged. Wire names stay upstream's dotted strings.
 */
export const EVENT_PAYLOADS = {
  'session.woke': P.NoPayload,
  'session.stopped': P.SessionLifecyclePayload,
  'session.crashed': P.SessionLifecyclePayload,
  'session.draining': P.NoPayload,
  'session.undrained': P.NoPayload,
  'session.quarantined': P.NoPayload,
  'session.idle_killed': P.NoPayload,
  'session.max_age_killed': P.NoPayload,
  'session.suspended': P.NoPayload,
  'session.updated': P.NoPayload,
  'session.drain_acked_with_assigned_work': P.SessionDrainAckedWithAssignedWorkPayload,
  'session.stranded': P.SessionStrandedPayload,
  'session.reset_stalled': P.SessionResetStalledPayload,
  'session.work_query_failed': P.SessionLifecyclePayload,
  'session.cold_start_timeout': P.NoPayload,
  'bead.created': P.BeadEventPayload,
  'bead.closed': P.BeadEventPayload,
  'bead.deleted': P.BeadEventPayload,
  'bead.updated': P.BeadEventPayload,
  'bead.worktree.reaped': P.BeadWorktreeReapedPayload,
  'bead.worktree.reap_skipped': P.BeadWorktreeReapSkippedPayload,
  'bead.claim_rejected': P.BeadClaimRejectedPayload,
  'mail.sent': P.MailEventPayload,
  'mail.read': P.MailEventPayload,
  'mail.archived': P.MailEventPayload,
  'mail.marked_read': P.MailEventPayload,
  'mail.marked_unread': P.MailEventPayload,
  'mail.replied': P.MailEventPayload,
  'mail.deleted': P.MailEventPayload,
  'convoy.created': P.NoPayload,
  'convoy.closed': P.NoPayload,
  'controller.started': P.NoPayload,
  'controller.stopped': P.NoPayload,
  'city.suspended': P.NoPayload,
  'city.resumed': P.NoPayload,
  'request.result.city.create': P.CityCreateSucceededPayload,
  'request.result.city.unregister': P.CityUnregisterSucceededPayload,
  'request.result.session.create': P.SessionCreateSucceededPayload,
  'request.result.session.message': P.SessionMessageSucceededPayload,
  'request.result.session.submit': P.SessionSubmitSucceededPayload,
  'request.failed': P.RequestFailedPayload,
  'city.created': P.CityLifecyclePayload,
  'city.unregister_requested': P.CityLifecyclePayload,
  'order.fired': P.NoPayload,
  'order.completed': P.NoPayload,
  'order.failed': P.NoPayload,
  'provider.swapped': P.NoPayload,
  'worker.operation': P.WorkerOperationEventPayload,
  'project.identity.stamped': P.ProjectIdentityStampedPayload,
  'supervisor.fs_pressure.skipped_tick': P.SupervisorFSPressureSkippedTickPayload,
  'supervisor.started': P.SupervisorStartedPayload,
  'supervisor.shutdown_requested': P.SupervisorShutdownPayload,
  'supervisor.request': P.SupervisorRequestPayload,
  'extmsg.bound': P.BoundEventPayload,
  'extmsg.unbound': P.UnboundEventPayload,
  'extmsg.group_created': P.GroupCreatedEventPayload,
  'extmsg.adapter_added': P.AdapterEventPayload,
  'extmsg.adapter_removed': P.AdapterEventPayload,
  'extmsg.inbound': P.InboundEventPayload,
  'extmsg.outbound': P.OutboundEventPayload,
  'extmsg.outbound_channel_mismatch': P.OutboundChannelMismatchPayload,
  'events.rotated': P.RotatedPayload,
  'gc.store.maintenance.done': P.StoreMaintenanceDonePayload,
  'gc.store.maintenance.failed': P.StoreMaintenanceFailedPayload,
  'gc.store.disk_warn': P.StoreDiskWarnPayload,
  'gc.store.disk_critical': P.StoreDiskCriticalPayload,
  'pg.credential_resolved': P.PostgresCredentialResolvedPayload,
  'emergency.signaled': P.EmergencyRecord,
  'emergency.acked': P.EmergencyRecord,
} as const satisfies Record<string, NamedSchema>;

/** A registered (typed) event type. */
export type RegisteredEventType = keyof typeof EVENT_PAYLOADS;

/** Every registered type, in catalogue order (the Custom variant excludes exactly these). */
export const REGISTERED_EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as RegisteredEventType[];

/** True when `type` has a typed envelope variant. This is a pure function. */
export const isRegisteredEventType = (type: string): type is RegisteredEventType =>
  Object.hasOwn(EVENT_PAYLOADS, type);

/**
 * Our own bookkeeping types (docs/compatibility.md), typed like the registered ones but kept out of
 * upstream's list above: on the wire they stay Custom events and they have no OpenAPI component.
 */
export const OUR_EVENT_PAYLOADS = {
  'request.accepted': O.RequestAcceptedPayload,
  'supervisor.stopped': O.SupervisorStoppedPayload,
  'agent.config_changed': O.AgentConfigChangedPayload,
  ...EXTMSG_STATE_PAYLOADS,
  ...ORDER_STATE_PAYLOADS,
  ...WORKSPACE_SERVICE_PAYLOADS,
  ...CONFIG_PAYLOADS,
  ...CLUSTER_PAYLOADS,
} as const satisfies Record<string, NamedSchema>;

/**
 * The shared schemas the wire payload schemas refer to by `$ref`: the context their validators compile in
 * (`Compile(PAYLOAD_REFS, schema)`).
 */
export const PAYLOAD_REFS = { SubmitIntent, SubmissionCapabilities, SessionResponse };

/**
 * The event types a family brings from its own schemas file, beside the catalogue above: the family declares
 * their payload schemas' types here by declaration merging and registers the schemas themselves, at that
 * file's top level, with `registerFamilyEvents` (so whatever imports the family's schemas has them). They are
 * ours, like `OUR_EVENT_PAYLOADS`: typed drafts and decoded replays, Custom events on the wire, served only
 * with `include=internal`.
 *
 * @example
 * declare module './eventCatalog.ts' {
 *   interface FamilyEventCatalog {
 *     'widget.made': typeof WidgetMadePayload;
 *   }
 * }
 * registerFamilyEvents({ 'widget.made': WidgetMadePayload });
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families' declarations
export interface FamilyEventCatalog {}

const CORE_CATALOG = { ...EVENT_PAYLOADS, ...STORED_PAYLOADS, ...OUR_EVENT_PAYLOADS };

/**
 * Every type we write with a typed draft and decode at replay: upstream's registered types and ours, with
 * the stored-record schemas where the wire's payload is a whole resource (schemas/storedEventPayloads.ts),
 * and the families' own once their schemas file has registered them.
 */
export const EVENT_CATALOG = { ...CORE_CATALOG } as typeof CORE_CATALOG & FamilyEventCatalog;
export type Catalog = typeof EVENT_CATALOG;
export type CatalogEventType = keyof Catalog;

const ourTypes = new Set<string>(Object.keys(OUR_EVENT_PAYLOADS));
/** Our types (the catalogue's part upstream lacks), the families' registered ones included. */
export const OUR_EVENT_TYPES: ReadonlySet<string> = ourTypes;

/**
 * Adds a family's event types to the catalogue (see `FamilyEventCatalog`). Registering the same schema again
 * is a no-op (a module evaluated twice); a type the catalogue already has with another schema throws: two
 * families, or a family and the core, would decode one record two ways.
 */
export function registerFamilyEvents(events: Readonly<Record<string, NamedSchema>>): void {
  for (const [type, schema] of Object.entries(events)) {
    // By reflection: the catalogue's type knows only the types declared (the family's included).
    const known: unknown = Reflect.get(EVENT_CATALOG, type);
    if (known === schema) continue;
    if (known !== undefined) throw new Error(`event type ${type} is already in the catalogue`);
    Reflect.set(EVENT_CATALOG, type, schema);
    ourTypes.add(type);
  }
}

/** The payload of a catalogue type, as its schema types it. */
export type PayloadOf<K extends CatalogEventType> = Static<Catalog[K]>;

/** True when `type` has a payload schema in the catalogue (upstream's or ours). This is a pure function. */
export const isCatalogEventType = (type: string): type is CatalogEventType =>
  Object.hasOwn(EVENT_CATALOG, type);

/** Every distinct payload schema of the catalogue (each becomes an OpenAPI component). */
export const PAYLOAD_SCHEMAS: NamedSchema[] = [...new Set(Object.values(EVENT_PAYLOADS))];

/**
 * The PascalCase suffix of a type's variant name: `bead.worktree.reap_skipped` → `BeadWorktreeReapSkipped`.
 * This is a pure function.
 */
export const variantSuffix = (type: string): string =>
  type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
