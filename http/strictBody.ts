import Ajv, { type ValidateFunction } from 'ajv';
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
  const { coercing, strict, compiled } = compilersFor(externalSchemas);
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    const cache = compiled[httpPart === 'body' ? 'strict' : 'coercing'];
    // By content: routes build their schemas afresh for every app.
    const key = JSON.stringify(schema);
    let validate = cache.get(key);
    if (!validate) {
      // A route may use a shared schema itself as its body: Ajv already holds it under its $id.
      const id = (schema as { $id?: unknown }).$id;
      validate = (typeof id === 'string' && ajv.getSchema(id)) || ajv.compile(schema);
      cache.set(key, validate);
    }
    return httpPart === 'querystring' ? withQueryIntegerGrammar(schema, validate) : validate;
  };
}

interface Compilers {
  /** The shared schemas' ids: an $id names one schema of the catalogue in this process. */
  shared: string;
  coercing: Ajv.default;
  strict: Ajv.default;
  compiled: { coercing: Map<string, ValidateFunction>; strict: Map<string, ValidateFunction> };
}

/**
 * The Ajv pair (and what it compiled) for one set of shared schemas, kept for the process: every app built
 * with the same schemas (a test file builds dozens) reuses the validators instead of compiling ~150
 * routes' schemas again, which took seconds per app.
 */
const known: Compilers[] = [];

function compilersFor(externalSchemas: Record<string, unknown>): Compilers {
  const shared = Object.keys(externalSchemas).sort().join('\n');
  const same = known.find((c) => c.shared === shared);
  if (same) return same;
  const coercing = newAjv('array');
  const strict = newAjv(false);
  for (const schema of Object.values(externalSchemas)) {
    coercing.addSchema(schema as object);
    strict.addSchema(schema as object);
  }
  const made: Compilers = {
    shared,
    coercing,
    strict,
    compiled: { coercing: new Map(), strict: new Map() },
  };
  if (known.length >= 8) known.shift();
  known.push(made);
  return made;
}
