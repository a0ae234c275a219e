import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { parseCursor } from '../../actors/runtime/cursor.ts';
import { UnavailableError } from '../../actors/runtime/errors.ts';
import { feedStart } from '../../actors/runtime/feed/supervisorFeed.ts';
import { servedEvents } from '../../actors/runtime/feed/visibility.ts';
import { includeQueryParameter } from '../../schemas/eventInclude.ts';
import { sseResponseSchema } from '../../schemas/eventStreamFrames.ts';
import { QueryInteger } from '../../schemas/queryIntegerSchema.ts';
import type { AppDeps } from '../deps.ts';
import { supervisorResume } from '../events/resume.ts';
import { listSupervisorEvents } from '../events/supervisorList.ts';
import { openEventStream } from '../sse/open.ts';
import { streamRegistry } from '../sse/registry.ts';
import { runSupervisorStream } from '../sse/supervisorStream.ts';
import { jsonSerializer, streamOptions } from './eventRouteKit.ts';

/** How long a head start waits for each log's head before starting without it. */
const HEAD_WAIT_MS = 1000;

const ListQuery = Type.Object({
  type: Type.Optional(Type.String({ description: 'Only this event type.' })),
  actor: Type.Optional(Type.String({ description: 'Only this actor.' })),
  since: Type.Optional(Type.String({ description: 'Only events within this Go duration (e.g. 5m).' })),
  limit: Type.Optional(QueryInteger('Keep only the newest N; 0 = all.')),
  after_cursor: Type.Optional(Type.String({ description: 'Only events after this composite cursor.' })),
  ...includeQueryParameter(),
});

const StreamQuery = Type.Object({
  after_cursor: Type.Optional(
    Type.String({
      description:
        'Resume after this composite cursor (when Last-Event-ID is absent); omit both for the head.',
    }),
  ),
  ...includeQueryParameter(),
});

const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ description: 'SSE reconnect position (a composite cursor); wins over after_cursor.' }),
  ),
});

/**
 * Supervisor-scope event routes: `GET /v0/events` (every log merged, tagged with its city) and
 * `GET /v0/events/stream` (SSE over every log, following cities as they attach and detach).
 */
export function supervisorEventRoutes(app: FastifyInstance, deps: AppDeps): void {
  const registry = streamRegistry(deps);

  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/v0/events',
    {
      schema: {
        operationId: 'get-v0-events',
        summary: 'List supervisor events, oldest first',
        querystring: ListQuery,
        response: {
          200: { description: 'The merged events.', ...Type.Ref('SupervisorEventListOutputBody') },
        },
      },
      serializerCompiler: jsonSerializer,
    },
    async (request) => {
      const { after_cursor: afterCursor, include, ...query } = request.query;
      const after = afterCursor?.trim() ? parseCursor(afterCursor.trim(), 'after_cursor') : undefined;
      return listSupervisorEvents(deps.cities.logs(), {
        ...query,
        ...(after ? { after } : {}),
        served: servedEvents(include),
      });
    },
  );

  app.get<{ Querystring: Static<typeof StreamQuery> }>(
    '/v0/events/stream',
    {
      schema: {
        operationId: 'stream-supervisor-events',
        summary: 'Stream supervisor events (SSE)',
        description:
          'Frames `event: tagged_event` (id = the whole composite cursor after the event) and `event: heartbeat` ' +
          '(no id). Resumes after Last-Event-ID, else after_cursor; with neither it starts at every log head. ' +
          'Cities that start while the stream is open join it. 503 no_providers while no city is attached (nor left within the last two minutes).',
        querystring: StreamQuery,
        headers: StreamHeaders,
        response: {
          200: {
            description: 'The event stream.',
            content: {
              'text/event-stream': {
                schema: sseResponseSchema([
                  {
                    event: 'tagged_event',
                    data: 'TypedTaggedEventStreamEnvelope',
                    id: 'string',
                    idDescription: 'The composite cursor after this event.',
                  },
                  { event: 'heartbeat', data: 'HeartbeatEvent' },
                ]),
              },
            },
          },
        },
      },
      serializerCompiler: jsonSerializer,
      // A HEAD would hijack the response and hold an SSE stream open with nothing to send.
      exposeHeadRoute: false,
    },
    async (request, reply) => {
      const resume = supervisorResume(request.headers['last-event-id'], request.query.after_cursor);
      // The supervisor's own log alone is no provider (spec 6.3), but a city that left within the grace
      // still is, so a 202 for the last city's unregister is never followed by a 503 (spec 4.4 rule 3).
      if (!deps.cities.hasProviders())
        throw new UnavailableError('no event providers available', 'no_providers');
      const filter = request.query.include === 'internal' ? 'internal' : 'served';
      const served = servedEvents(request.query.include);
      const tail = registry.supervisorTail(deps.cities, filter, served);
      if (!tail.running) {
        // A stalled or failing log must not hold up (or fail) the others: it starts at its head when it can.
        const start = await feedStart(deps.cities.logs(), undefined, HEAD_WAIT_MS);
        tail.start(start);
      }
      const writer = openEventStream(reply, registry, streamOptions(deps));
      runSupervisorStream(
        {
          cities: deps.cities,
          served,
          onError: (log, err) => request.log.warn({ err, log }, 'supervisor stream: log failed; retrying'),
        },
        resume ? { after: resume } : { head: true },
        writer,
        { frames: registry.taggedFrames, tail },
      );
      return reply;
    },
  );
}
