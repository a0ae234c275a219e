import Ajv from 'ajv';
import ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const base = { removeAdditional: false, useDefaults: true, allErrors: true } as const;
// Query strings and path parameters arrive as text: coercing them is the point. A JSON body has types.
const coercing = ajvFormats.default(new Ajv.default({ ...base, coerceTypes: 'array' }));
const strict = ajvFormats.default(new Ajv.default({ ...base, coerceTypes: false }));

/**
 * A route `validatorCompiler` that validates JSON bodies without type coercion (`{"dir": 5}` is a 422,
 * not the directory "5"), and everything else as the app does. Unknown body fields stay refused.
 */
export const strictBodyValidator: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema);
