import type { ErrorObject } from 'ajv';
import { parseQueryInteger } from '../schemas/queryInteger.ts';

/** The message of every malformed integer query value (upstream's own wording for `index`). */
export const integerMessage = (name: string): string => `${name} must be a non-negative integer`;

/** A compiled validator as Fastify calls it: `false` with `errors` set when `data` is refused. */
export type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** The names of the `integer` properties of a querystring schema. */
function integerProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
}

/**
 * `validate` (Ajv's validator of a route's querystring) behind the one integer grammar: the text of each
 * `integer` property must pass {@link parseQueryInteger} before Ajv coerces it, since Ajv's coercion is
 * `+text` (`1e309` → Infinity, `0x10` → 16, ` 1` → 1, a 20-digit value rounded). A blank value is absent,
 * as Go reads it. A failure is Ajv-shaped, so http/problem.ts answers it as every query validation error:
 * 422 `validation failed` with `errors[]` at `query.<name>` carrying the value. Schemas without integer
 * properties get `validate` itself.
 */
export function withQueryIntegerGrammar(schema: unknown, validate: Validator): Validator {
  const names = integerProperties(schema);
  if (names.length === 0) return validate;
  const checked: Validator = (data) => {
    const query = (data ?? {}) as Record<string, unknown>;
    const errors: ErrorObject[] = [];
    for (const name of names) {
      const value = query[name];
      if (value === '') Reflect.deleteProperty(query, name);
      // A repeated parameter arrives as an array; Ajv refuses more than one value, each must be well formed.
      else if (
        [value].flat().some((text) => typeof text === 'string' && parseQueryInteger(text) === undefined)
      ) {
        errors.push({
          keyword: 'type',
          instancePath: `/${name}`,
          schemaPath: `#/properties/${name}`,
          params: {},
          message: integerMessage(name),
          data: value,
        });
      }
    }
    checked.errors = errors.length > 0 ? errors : undefined;
    if (errors.length > 0) return false;
    const ok = validate(data);
    checked.errors = validate.errors;
    return ok;
  };
  return checked;
}
