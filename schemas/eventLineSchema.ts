/**
 * `events.json`: the schema of one `gc events` JSON line (spec 6.4 rule 7). It defines no event shape of its
 * own: every line is one of four OpenAPI components, referenced relative to this file (the two documents
 * are published side by side: `docs/schema/`, and `/v0/schema/` on a running supervisor).
 */

/** Where the OpenAPI document is, relative to `events.json`. */
export const OPENAPI_FILE = 'openapi.json';

const component = (name: string): { $ref: string } => ({
  $ref: `${OPENAPI_FILE}#/components/schemas/${name}`,
});

/** The line kinds: which mode and scope print which envelope. */
export const LINE_KINDS = {
  cityListLine: 'TypedEventStreamEnvelope',
  cityStreamLine: 'TypedEventStreamEnvelope',
  supervisorListLine: 'TypedTaggedEventStreamEnvelope',
  supervisorStreamLine: 'TypedTaggedEventStreamEnvelope',
} as const;

/** Builds the `events.json` document. This is a pure function; its output is stable (the file is checked in). */
export function eventLineSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(LINE_KINDS).map(([kind, name]) => [kind, { ...component(name), title: kind }]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'events.json',
    title: 'gc events JSON line',
    description:
      'One line printed by `gc events` in list, --watch or --follow mode: exactly one JSON object, an event ' +
      'envelope of the supervisor API. `gc events --seq` prints a plain-text cursor instead and is not covered.',
    anyOf: Object.keys(LINE_KINDS).map((kind) => ({ $ref: `#/$defs/${kind}` })),
    $defs: defs,
    'x-gc-events': {
      sourceOfTruth: OPENAPI_FILE,
      framing:
        'JSON Lines: one compact object per line, no wrapper; nothing is printed when nothing matches.',
      listMode: {
        city: {
          line: 'cityListLine',
          source: 'GET /v0/city/{cityName}/events',
          schema: LINE_KINDS.cityListLine,
        },
        supervisor: {
          line: 'supervisorListLine',
          source: 'GET /v0/events',
          schema: LINE_KINDS.supervisorListLine,
        },
      },
      streamMode: {
        city: {
          line: 'cityStreamLine',
          source: 'GET /v0/city/{cityName}/events/stream (event: event)',
          schema: LINE_KINDS.cityStreamLine,
        },
        supervisor: {
          line: 'supervisorStreamLine',
          source: 'GET /v0/events/stream (event: tagged_event)',
          schema: LINE_KINDS.supervisorStreamLine,
        },
      },
      heartbeatSuppression: 'event: heartbeat frames are consumed by the client and never printed.',
      cursorMode: {
        flag: '--seq',
        output: 'one plain-text line: the city X-GC-Index, or the composite supervisor cursor',
        json: false,
      },
    },
  };
}
