import Ajv from 'ajv';
import ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { withQueryIntegerGrammar } from './queryIntegerGrammar.ts';

const base = { removeAdditional: false, useDefaults: true, allErrors: true } as const;

const newAjv = (coerceTypes: 'array' | false): Ajv.default =>
  ajvFormats.default(new Ajv.default({ ...base, coerceTypes }));

/**
 * Fastify's validator factory (`schemaController.compilersFactory.buildValidator`): query strings, path
 * parameters and headers arrive as text, and coercing them is the point; a JSON body has types, so it is
 * validated without coercion (`{"dir": 5}` is a 422, never the directory "5"). Unknown body fields stay
 * refused. Both Ajv instances know the shared schemas of the encapsulation context, so `$ref` bodies work.
 * Integer query values must be decimal digits before Ajv coerces them (http/queryIntegerGrammar.ts).
 */
export function buildValidator(externalSchemas: Record<string, unknown> = {}): FastifySchemaCompiler<object> {
  const coercing = newAjv('array');
  const strict = newAjv(false);
  for (const schema of Object.values(externalSchemas)) {
    coercing.addSchema(schema as object);
    strict.addSchema(schema as object);
  }
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    // A route may use a shared schema itself as its body: Ajv already holds it under its $id.
    const id = (schema as { $id?: unknown }).$id;
    const validate = (typeof id === 'string' && ajv.getSchema(id)) || ajv.compile(schema);
    return httpPart === 'querystring' ? withQueryIntegerGrammar(schema, validate) : validate;
  };
}
