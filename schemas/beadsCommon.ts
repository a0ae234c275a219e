import { Type, type Static, type TSchema } from 'typebox';
import { blockingQueryParameters } from './blockingQuery.ts';
import { QueryInteger } from './queryIntegerSchema.ts';

/**
 * Small schema builders shared by the beads, mail and convoys families, written so the emitted JSON
 * Schema reads like upstream's (`type: ['array', 'null']`, `additionalProperties: {type: string}`).
 */

/** An array that may also be `null` on the wire (upstream's Go nil slices). */
export const nullableArray = <T extends TSchema>(items: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<Array<Static<T>> | null>({ type: ['array', 'null'], items, ...options });

/** A `map<string,string>` (upstream metadata). */
export const stringMap = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<Record<string, string>>({
    type: 'object',
    additionalProperties: { type: 'string' },
    ...options,
  });

/** `{status}`: upstream's OKResponseBody. */
export const OkResponseSchema = Type.Object(
  { status: Type.String({ description: 'Operation result.' }) },
  { additionalProperties: false },
);
export type OkResponse = Static<typeof OkResponseSchema>;

/** Path parameter `cityName` as upstream declares it. */
export const CityNameParam = Type.String({ minLength: 1, pattern: '\\S', description: 'City name.' });

/** `X-GC-Request` on every mutation (the middleware enforces it; this documents it). */
export const MutationHeaders = Type.Object({
  'x-gc-request': Type.Optional(
    Type.String({ description: 'Any non-empty value; required on mutations (anti-CSRF).' }),
  ),
});

/** Mutation headers plus `Idempotency-Key` (create-bead, send-mail, reply-mail). */
export const IdempotentMutationHeaders = Type.Object({
  'x-gc-request': Type.Optional(
    Type.String({ description: 'Any non-empty value; required on mutations (anti-CSRF).' }),
  ),
  'idempotency-key': Type.Optional(Type.String({ description: 'Idempotency key for safe retries.' })),
});

/** Blocking-query parameters (`index`, `wait`) of the list operations. */
export const blockingQueryProperties = blockingQueryParameters('2m');

/** Cursor paging parameters (`cursor`, `limit`) of the list operations. */
export const pagingQueryProperties = {
  cursor: Type.Optional(
    Type.String({ description: "Pagination cursor from a previous response's next_cursor field." }),
  ),
  limit: Type.Optional(QueryInteger('Maximum number of results to return. 0 = server default.')),
};

const INDEX_HEADERS = {
  'X-GC-Index': {
    type: 'integer',
    minimum: 0,
    description: 'The city event index the answer reflects; the `index` of the next blocking query.',
  },
  'X-GC-Cache-Age-S': {
    type: 'number',
    description: 'Age in seconds of the read model that answered: always 0 (it is live).',
  },
};

/**
 * `schema` as a documented response that carries `X-GC-Index` and `X-GC-Cache-Age-S` (or only the
 * cache age with `indexHeader: false`). The extra keys only feed the OpenAPI document.
 */
export function indexedResponse<T extends object>(schema: T, description: string, indexHeader = true): T {
  const headers = indexHeader ? INDEX_HEADERS : { 'X-GC-Cache-Age-S': INDEX_HEADERS['X-GC-Cache-Age-S'] };
  return { ...schema, description, headers };
}
