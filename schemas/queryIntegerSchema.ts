import { Type } from 'typebox';
import { QUERY_INTEGER_MAX } from './queryInteger.ts';

/**
 * An integer query parameter as the OpenAPI document shows it. The validator (http/strictBody.ts) holds
 * the text of every `integer` query property to `parseQueryInteger` (./queryInteger.ts) before Ajv coerces it.
 */
export const QueryInteger = (description: string) =>
  Type.Integer({ minimum: 0, maximum: QUERY_INTEGER_MAX, description });
