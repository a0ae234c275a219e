import Ajv2020Import from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';

// Both packages are CommonJS: the default import is `module.exports`, whose `default` is the export proper.
const Ajv2020 = Ajv2020Import.default;
const addFormats = addFormatsImport.default;

/** Which `$defs` entry of events.json a `gc events` line must satisfy. */
export type LineKind = 'cityListLine' | 'cityStreamLine' | 'supervisorListLine' | 'supervisorStreamLine';

/** Validates `gc events` lines against the line schema the supervisor serves. */
export type LineValidator = (line: unknown, kind: LineKind) => string | undefined;

/**
 * Fetches `/v0/schema/events.json` and the `openapi.json` it refers to from a running supervisor and
 * compiles them (JSON Schema 2020-12). The validator returns undefined for a valid line, else the errors.
 */
export async function lineValidator(baseUrl: string): Promise<LineValidator> {
  const [events, openapi] = await Promise.all(
    ['events.json', 'openapi.json'].map(async (name) => {
      const res = await fetch(`${baseUrl}/v0/schema/${name}`);
      if (!res.ok) throw new Error(`GET /v0/schema/${name}: ${res.status}`);
      return (await res.json()) as object;
    }),
  );
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('int64', true);
  ajv.addFormat('double', true);
  ajv.addSchema(openapi!, 'openapi.json');
  ajv.addSchema(events!, 'events.json');
  return (line, kind) => {
    const whole = ajv.getSchema('events.json')!;
    const specific = ajv.getSchema(`events.json#/$defs/${kind}`)!;
    if (whole(line) && specific(line)) return undefined;
    return ajv.errorsText(specific.errors ?? whole.errors, { separator: '; ' });
  };
}
