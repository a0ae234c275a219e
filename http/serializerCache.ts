import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Serializer = (data: unknown) => string;
type Compile = (route: { schema: object }) => Serializer;

interface Compiled {
  /** The shared schemas' ids: an $id names one schema of the catalogue in this process. */
  shared: string;
  options: unknown;
  serializers: Map<string, Serializer>;
}

const defaultFactory = SerializerSelector();
/** Serializers per set of shared schemas (each encapsulation context of an app has its own set). */
const known: Compiled[] = [];

/**
 * Fastify's response serializer factory (`schemaController.compilersFactory.buildSerializer`): Fastify's
 * own (fast-json-stringify), with each compiled serializer kept for the process by its schema's text. An
 * app has ~150 routes; compiling their response schemas again for every app a test file builds cost about
 * a second each time, for the same compiled code.
 */
export function buildSerializer(
  externalSchemas: Record<string, unknown> = {},
  serializerOptions?: unknown,
): Compile {
  const compile = (defaultFactory as (s: unknown, o: unknown) => Compile)(externalSchemas, serializerOptions);
  const shared = Object.keys(externalSchemas).sort().join('\n');
  let entry = known.find((c) => c.options === serializerOptions && c.shared === shared);
  if (!entry) {
    entry = { shared, options: serializerOptions, serializers: new Map() };
    if (known.length >= 8) known.shift();
    known.push(entry);
  }
  const { serializers } = entry;
  return (route) => {
    // By content: routes build their response schemas afresh for every app.
    const key = JSON.stringify(route.schema);
    let serialize = serializers.get(key);
    if (!serialize) {
      serialize = compile(route);
      serializers.set(key, serialize);
    }
    return serialize;
  };
}
