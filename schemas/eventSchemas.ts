import {
  EventEmitOutputBody,
  EventEmitRequest,
  ListBodyWireEvent,
  SupervisorEventListOutputBody,
} from './eventBodies.ts';
import { PAYLOAD_SCHEMAS } from './eventCatalog.ts';
import {
  EventStreamEnvelope,
  HeartbeatEvent,
  TaggedEventStreamEnvelope,
  TYPED_VARIANTS,
  TypedEventStreamEnvelope,
  TypedTaggedEventStreamEnvelope,
  WireEvent,
  WireTaggedEvent,
} from './eventEnvelopes.ts';
import type { NamedSchema } from './named.ts';

/** Every named schema of the event API, in dependency order (referenced schemas first). */
export const EVENT_SCHEMAS: readonly NamedSchema[] = [
  ...PAYLOAD_SCHEMAS,
  EventStreamEnvelope,
  TaggedEventStreamEnvelope,
  HeartbeatEvent,
  ...TYPED_VARIANTS,
  TypedEventStreamEnvelope,
  TypedTaggedEventStreamEnvelope,
  WireEvent,
  WireTaggedEvent,
  ListBodyWireEvent,
  SupervisorEventListOutputBody,
  EventEmitRequest,
  EventEmitOutputBody,
];

/** Where shared schemas live: a Fastify instance (`addSchema`/`getSchema`) or anything shaped like one. */
export interface SchemaRegistry {
  addSchema(schema: NamedSchema): unknown;
  getSchema(id: string): unknown;
}

/**
 * Adds each schema to `registry` unless one with its `$id` is already there, so several route families can
 * register overlapping sets without Fastify's duplicate-id error. Effect: mutates `registry`.
 */
export function registerSchemas(registry: SchemaRegistry, schemas: readonly NamedSchema[]): void {
  for (const schema of schemas) {
    if (registry.getSchema(schema.$id) === undefined) registry.addSchema(schema);
  }
}
