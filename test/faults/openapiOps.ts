import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The parts of an OpenAPI 3.1 document the fault tests read. */
export interface OpenApiDoc {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, unknown> };
}

interface OperationObject {
  operationId?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

/** The JSON Schema subset the generators understand (anything else is treated as "any"). */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  format?: string;
  minimum?: number;
  additionalProperties?: boolean | JsonSchema;
}

/** One operation of the document, flattened for request generation. */
export interface Operation {
  method: string;
  /** The path template, `{name}` placeholders included. */
  path: string;
  id: string;
  pathParams: string[];
  query: Array<{ name: string; schema: JsonSchema }>;
  headers: string[];
  /** The JSON body schema ($refs resolved at the top), when the operation takes one. */
  body: JsonSchema | undefined;
  /** Validates a body against the document's schema (its $refs resolved through the document). */
  validBody: ((value: unknown) => boolean) | undefined;
  /** Answers 200 with `text/event-stream`. */
  stream: boolean;
  mutation: boolean;
}

const MUTATIONS = new Set(['post', 'put', 'patch', 'delete']);

/** Resolves a local `$ref` (`#/components/schemas/X`) against the document; other schemas pass through. */
export function resolveRef(doc: OpenApiDoc, schema: JsonSchema | undefined): JsonSchema | undefined {
  let s = schema;
  for (let hops = 0; s?.$ref && hops < 10; hops++) {
    const name = s.$ref.replace(/^#\/components\/schemas\//, '');
    s = doc.components?.schemas?.[name] as JsonSchema | undefined;
  }
  return s;
}

/**
 * Every operation of `doc`, in document order. Body validators are compiled with Ajv (2020-12, the dialect
 * of OpenAPI 3.1) over the whole document, so a generated body can be proven invalid by the contract
 * itself rather than by the server under test.
 */
export function operationsOf(doc: OpenApiDoc): Operation[] {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  // Component schemas carry their own `$id`s; the document is registered under one id of its own.
  const { components, paths } = doc;
  ajv.addSchema({ $id: 'gc-openapi', components, paths });
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (typeof op !== 'object' || !op) continue;
      const params = op.parameters ?? [];
      const json = op.requestBody?.content?.['application/json'];
      const pointer = `gc-openapi#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/requestBody/content/application~1json/schema`;
      const validate = json?.schema ? ajv.compile({ $ref: pointer }) : undefined;
      ops.push({
        method: method.toUpperCase(),
        path,
        id: op.operationId ?? `${method} ${path}`,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        headers: params.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()),
        body: resolveRef(doc, json?.schema),
        validBody: validate ? (value) => validate(value) : undefined,
        stream: Object.keys(op.responses?.['200']?.content ?? {}).includes('text/event-stream'),
        mutation: MUTATIONS.has(method),
      });
    }
  }
  return ops;
}

/** Fills `{name}` placeholders of `path` from `values` (a fallback for names not given), URI-encoded. */
export function fillPath(path: string, values: Record<string, string>, fallback = 'x'): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? fallback));
}

const typesOf = (s: JsonSchema): string[] =>
  s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];

/**
 * A value that satisfies `schema` as far as this generator can tell (the first enum value, an ISO date for
 * date-time, one for integers, required properties only). Pure.
 */
export function sampleOf(doc: OpenApiDoc, schema: JsonSchema | undefined, depth = 0): unknown {
  const s = resolveRef(doc, schema);
  if (!s || depth > 6) return 'x';
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return sampleOf(doc, alt[0], depth + 1);
  const type = typesOf(s).find((t) => t !== 'null') ?? 'string';
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) out[name] = sampleOf(doc, s.properties?.[name], depth + 1);
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return Math.max(1, s.minimum ?? 1);
    case 'boolean':
      return true;
    default:
      return s.format === 'date-time' ? '2026-01-01T00:00:00Z' : 'x';
  }
}

/** JSON values of a type other than the schema's: each a type error for a field of that schema. Pure. */
export function wrongTypedValues(doc: OpenApiDoc, schema: JsonSchema | undefined): unknown[] {
  const types = new Set(typesOf(resolveRef(doc, schema) ?? {}));
  const candidates: Array<[string, unknown]> = [
    ['string', 'not-a-number'],
    ['integer', 12345],
    ['number', 1.5],
    ['boolean', false],
    ['array', ['a', 1, null]],
    ['object', { nested: { deeper: [1, 2, 3] } }],
    ['null', null],
  ];
  return candidates
    .filter(([t]) => !types.has(t) && !(t === 'integer' && types.has('number')))
    .map(([, v]) => v);
}
