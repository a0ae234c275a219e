import type { TSchema } from 'typebox';

/** A schema that is shared by `$ref`: its `$id` is also its OpenAPI component name. */
export type NamedSchema = TSchema & { $id: string };

/**
 * Asserts that `schema` carries an `$id` and types it so (TypeBox does not reflect `$id` in its types).
 * @throws Error when the `$id` is missing: a shared schema without one could never be referenced.
 */
export function named<T extends TSchema>(schema: T): T & { $id: string } {
  if (typeof (schema as { $id?: unknown }).$id !== 'string') throw new Error('shared schema without $id');
  return schema as T & { $id: string };
}
