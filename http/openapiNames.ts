import UPSTREAM from './upstreamSchemaNames.json' with { type: 'json' };

/** Where upstream's document names a component: a name, or the named spots under an inline schema. */
type NameTree = string | { p?: Record<string, NameTree>; i?: NameTree; a?: NameTree };

interface UpstreamNames {
  operations: Record<string, { req?: NameTree; res?: Record<string, NameTree> }>;
  components: Record<string, NameTree>;
}

const NAMES = UPSTREAM as unknown as UpstreamNames;

type Schema = Record<string, unknown>;

const HEADER_NAMES: Record<string, string> = {
  'x-gc-request': 'X-GC-Request',
  'idempotency-key': 'Idempotency-Key',
  'last-event-id': 'Last-Event-ID',
};

/**
 * Integer query parameters upstream's document types as strings (Go parses them): published as strings of
 * digits, so a client that passes upstream's `string` compiles; the value is still held to our integer
 * grammar and range (http/strictBody.ts), which the description states.
 */
const STRING_INTEGER_QUERIES: Record<string, string[]> = {
  'get /v0/city/{cityName}/agent/{base}/output': ['tail'],
  'get /v0/city/{cityName}/agent/{dir}/{base}/output': ['tail'],
  'get /v0/city/{cityName}/session/{id}/transcript': ['tail'],
};

interface Content {
  content?: Record<string, { schema?: Schema }>;
}
interface Operation {
  parameters?: { in?: string; name?: string; schema?: Schema }[];
  requestBody?: Content;
  responses?: Record<string, Content>;
}

/** Words about a schema that do not change what it accepts or how a client is generated from it. */
const PROSE = new Set(['description', 'title', 'examples']);

/** The text of what `schema` accepts, its prose left out: two spots with the same shape share a name. */
const shapeOf = (schema: unknown): string =>
  // A property named like a prose keyword holds a schema (an object), never a string or a list.
  JSON.stringify(schema, (key, value: unknown) =>
    PROSE.has(key) && (typeof value === 'string' || Array.isArray(value)) ? undefined : value,
  );

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Upstream's names in the generated OpenAPI document, given at generation time (not by renaming our
 * TypeScript schemas) so that a client generated from ours is the one generated from upstream's: header
 * parameters in upstream's spelling (Fastify keys them in lower case), and every inline schema served where
 * upstream's document refers to a component becomes that component, under upstream's name, and is
 * referred to (`http/upstreamSchemaNames.json` holds where upstream names what). Two inline schemas of
 * different shapes never share a name (the second stays inline); schemas that differ only in prose do. Mutates and returns `document`.
 */
export function withUpstreamNames<T extends object>(document: T): T {
  const doc = document as {
    paths?: Record<string, Record<string, Operation>>;
    components?: { schemas?: Schema };
  };
  const components = ((doc.components ??= {}).schemas ??= {}) as Record<string, Schema>;
  const taken = new Map<string, string>();
  for (const [name, schema] of Object.entries(components)) taken.set(name, shapeOf(schema));

  /** Gives `schema` (at a spot upstream names by `tree`) upstream's names; answers what replaces it. */
  const name = (schema: Schema, tree: NameTree | undefined): Schema => {
    if (tree === undefined || '$ref' in schema) return schema;
    if (typeof tree === 'string') {
      const named = within(schema, NAMES.components[tree]);
      const text = shapeOf(named);
      const held = taken.get(tree);
      if (held === undefined) {
        taken.set(tree, text);
        components[tree] = named;
      } else if (held !== text) return named;
      return { $ref: `#/components/schemas/${tree}` };
    }
    return within(schema, tree);
  };
  /** Names the spots under `schema` (its properties, items, additional properties) that `tree` names. */
  const within = (schema: Schema, tree: NameTree | undefined): Schema => {
    if (tree === undefined || typeof tree === 'string') return schema;
    const out: Schema = { ...schema };
    // A nullable spot is `anyOf: [the schema, null]` here: name inside each member.
    if (Array.isArray(schema.anyOf))
      out.anyOf = schema.anyOf.map((member: unknown) => (isSchema(member) ? within(member, tree) : member));
    if (tree.p && isSchema(schema.properties)) {
      const props: Schema = { ...schema.properties };
      for (const [key, sub] of Object.entries(tree.p))
        if (isSchema(props[key])) props[key] = name(props[key], sub);
      out.properties = props;
    }
    if (tree.i && isSchema(schema.items)) out.items = name(schema.items, tree.i);
    if (tree.a && isSchema(schema.additionalProperties))
      out.additionalProperties = name(schema.additionalProperties, tree.a);
    return out;
  };

  // Components we register under upstream's name (by `$id`) are named inside as upstream's are.
  for (const existing of [...taken.keys()]) {
    const tree = NAMES.components[existing];
    if (tree !== undefined && typeof tree !== 'string' && components[existing])
      components[existing] = within(components[existing], tree);
  }
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const stringIntegers = STRING_INTEGER_QUERIES[`${method} ${path}`] ?? [];
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'header' && parameter.name !== undefined)
          parameter.name = HEADER_NAMES[parameter.name.toLowerCase()] ?? parameter.name;
        if (parameter.in === 'query' && stringIntegers.includes(parameter.name ?? ''))
          parameter.schema = { type: 'string', pattern: '^[0-9]+$' };
      }
      const upstream = NAMES.operations[`${method} ${path}`];
      if (!upstream) continue;
      const body = operation.requestBody?.content?.['application/json'];
      if (body?.schema) body.schema = name(body.schema, upstream.req);
      for (const [status, tree] of Object.entries(upstream.res ?? {})) {
        const json = operation.responses?.[status]?.content?.['application/json'];
        if (json?.schema) json.schema = name(json.schema, tree);
      }
    }
  }
  return document;
}
