import { Type, type Static } from 'typebox';
import { named } from './named.ts';

/** Upstream ErrorDetail: one bad value of a request. */
export const ErrorDetail = named(
  Type.Object(
    {
      location: Type.String({
        description: "Where the error occurred, e.g. 'body.dir', 'query.index' or 'path.cityName'.",
      }),
      message: Type.String({ description: 'Error message text.' }),
      value: Type.Optional(Type.Unknown({ description: 'The value at the given location.' })),
    },
    { $id: 'ErrorDetail', title: 'ErrorDetail', additionalProperties: false },
  ),
);
export type ErrorDetail = Static<typeof ErrorDetail>;

/**
 * Upstream ErrorModel: the RFC 9457 Problem Details body of every error (`application/problem+json`).
 * `detail` starts with a stable code clients match on (`not_found: …`, `conflict: …`, `csrf: …`).
 */
export const ErrorModel = named(
  Type.Object(
    {
      type: Type.Optional(
        // The default is RFC 9457's meaning of an absent type, as upstream's document declares it.
        Type.String({
          format: 'uri',
          default: 'about:blank',
          description:
            'A URI naming the kind of problem; absent means about:blank. Only POST /sling sets one.',
          examples: ['urn:gascity:error:sling-missing-bead'],
        }),
      ),
      title: Type.String({
        description: 'A short, human-readable summary of the problem type (the HTTP reason phrase).',
        examples: ['Bad Request'],
      }),
      status: Type.Integer({ description: 'HTTP status code.', examples: [400] }),
      detail: Type.String({
        description: 'A human-readable explanation specific to this occurrence of the problem.',
        examples: ['not_found: city not registered with supervisor: alpha'],
      }),
      errors: Type.Optional(
        Type.Array(Type.Ref('ErrorDetail'), {
          description: 'The individual bad values, when the request failed validation.',
        }),
      ),
    },
    { $id: 'ErrorModel', title: 'ErrorModel', additionalProperties: false },
  ),
);
/** ErrorModel with its `errors[]` typed through the `$ref` (TypeBox types a `Type.Ref` as unknown). */
export type ErrorModel = Omit<Static<typeof ErrorModel>, 'errors'> & { errors?: ErrorDetail[] };
