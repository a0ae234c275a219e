import Ajv2020Import from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import type { ErrorObject } from 'ajv';

// Both packages are CommonJS: the default import is `module.exports`, whose `default` is the export proper.
const Ajv2020 = Ajv2020Import.default;
const addFormats = addFormatsImport.default;

/** Validates values against the published documents: OpenAPI components and the `events.json` line schema. */
export interface DocValidator {
  /** Errors of `value` against `#/components/schemas/<name>` (empty when it is valid). */
  component(name: string, value: unknown): ErrorObject[];
  /** Errors of `value` as one `gc events` line; with `kind`, against that `$defs` entry only. */
  line(value: unknown, kind?: string): ErrorObject[];
}

/**
 * A JSON Schema 2020-12 validator over `openapi` (registered as `openapi.json`, the name `events.json`
 * refers to it by) and `events`. Unknown keywords (discriminator, x-gc-events) are annotations.
 */
export function docValidator(openapi: object, events: object): DocValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('int64', true);
  ajv.addFormat('double', true);
  ajv.addSchema(openapi, 'openapi.json');
  ajv.addSchema(events);
  const check = (ref: string, value: unknown): ErrorObject[] => {
    const validate = ajv.getSchema(ref);
    if (!validate) throw new Error(`no schema at ${ref}`);
    return validate(value) ? [] : (validate.errors ?? []);
  };
  return {
    component: (name, value) => check(`openapi.json#/components/schemas/${name}`, value),
    line: (value, kind) => check(kind ? `events.json#/$defs/${kind}` : 'events.json', value),
  };
}
