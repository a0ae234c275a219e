import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { customEventDraft } from '../../actors/runtime/customEvents.ts';
import { servedEvents } from '../../actors/runtime/feed/visibility.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { MutationHeaders } from '../../schemas/beadsCommon.ts';
import { blockingQueryParameters } from '../../schemas/blockingQuery.ts';
import { QueryInteger } from '../../schemas/queryIntegerSchema.ts';
import { includeQueryParameter } from '../../schemas/eventInclude.ts';
import type { EventEmitRequest } from '../../schemas/eventBodies.ts';
import { sseResponseSchema } from '../../schemas/eventStreamFrames.ts';
import { EVENT_LIST_MAX_WAIT_MS, parseBlockingQuery, waitForJournal } from '../blockingQuery.ts';
import { runningCity } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';
import { listCityEvents } from '../events/cityList.ts';
import { cityResume } from '../events/resume.ts';
import { openEventStream } from '../sse/open.ts';
import { streamRegistry } from '../sse/registry.ts';
import { runCityStream } from '../sse/cityStream.ts';
import { jsonSerializer, streamOptions } from './eventRouteKit.ts';

const CityParams = Type.Object({
  cityName: Type.String({ minLength: 1, pattern: '\\S', description: 'City name.' }),
});

const ListQuery = Type.Object({
  ...blockingQueryParameters('5m'),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page.' })),
  limit: Type.Optional(QueryInteger('Page size; 0 = default (100), at most 1000.')),
  type: Type.Optional(Type.String({ description: 'Only this event type.' })),
  actor: Type.Optional(Type.String({ description: 'Only this actor.' })),
  since: Type.Optional(Type.String({ description: 'Only events within this Go duration (e.g. 5m).' })),
  after_seq: Type.Optional(QueryInteger('Only events after this seq.')),
  ...includeQueryParameter(),
});

const StreamQuery = Type.Object({
  after_seq: Type.Optional(
    Type.String({
      description: 'Resume after this seq (when Last-Event-ID is absent); omit both for the head.',
    }),
  ),
  ...includeQueryParameter(),
});

const StreamHeaders = Type.Object({
  'Last-Event-ID': Type.Optional(
    Type.String({ description: 'SSE reconnect position (a seq); wins over after_seq.' }),
  ),
});

const indexHeader = {
  'X-GC-Index': { type: 'integer', minimum: 0, description: 'Head of the city log.' },
  'X-GC-Cache-Age-S': {
    type: 'number',
    description: 'Age in seconds of the read model that answered: always 0 (the log is read live).',
  },
};

/**
 * City-scope event routes: `GET /v0/city/{cityName}/events` (a page, newest first, optionally blocking),
 * `POST /v0/city/{cityName}/events` (emit) and `GET /v0/city/{cityName}/events/stream` (SSE).
 */
export function cityEventRoutes(app: FastifyInstance, deps: AppDeps): void {
  const registry = streamRegistry(deps);

  app.get<{ Params: Static<typeof CityParams>; Querystring: Static<typeof ListQuery> }>(
    '/v0/city/:cityName/events',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-events',
        summary: 'List city events, newest first',
        params: CityParams,
        querystring: ListQuery,
        response: {
          200: { description: 'A page of events.', headers: indexHeader, ...Type.Ref('ListBodyWireEvent') },
        },
      },
      serializerCompiler: jsonSerializer,
    },
    async (request, reply) => {
      const { journal } = runningCity(deps, request.params.cityName);
      const { index, wait, include, ...query } = request.query;
      const blocking = parseBlockingQuery({ index, wait }, EVENT_LIST_MAX_WAIT_MS);
      if (blocking) await waitForJournal(reply, journal, blocking);
      const served = servedEvents(include);
      const keep = (event: JournalEvent): boolean => served(journal.name, event);
      const { body, head } = await listCityEvents(journal, { ...query, keep });
      // Upstream declares both headers on this list; the cache age is 0: the log is read live.
      return reply.header('X-GC-Index', String(head)).header('X-GC-Cache-Age-S', '0').send(body);
    },
  );

  app.post<{ Params: Static<typeof CityParams>; Body: Static<typeof EventEmitRequest> }>(
    '/v0/city/:cityName/events',
    {
      schema: {
        operationId: 'emit-event',
        summary: 'Record an event in a city log',
        params: CityParams,
        headers: MutationHeaders,
        body: Type.Ref('EventEmitRequest'),
        response: { 201: { description: 'Recorded.', ...Type.Ref('EventEmitOutputBody') } },
      },
    },
    async (request, reply) => {
      const { log } = runningCity(deps, request.params.cityName);
      await log.appendCustom(customEventDraft(request.body));
      return reply.code(201).send({ status: 'recorded' });
    },
  );

  app.get<{ Params: Static<typeof CityParams>; Querystring: Static<typeof StreamQuery> }>(
    '/v0/city/:cityName/events/stream',
    {
      schema: {
        operationId: 'stream-events',
        summary: 'Stream city events (SSE)',
        description:
          'Frames `event: event` (id = seq) and `event: heartbeat` (no id). Resumes after Last-Event-ID, else ' +
          'after_seq; with neither it starts at the current head. A malformed resume value is a 400.',
        params: CityParams,
        querystring: StreamQuery,
        headers: StreamHeaders,
        response: {
          200: {
            description: 'The event stream.',
            content: {
              'text/event-stream': {
                schema: sseResponseSchema([
                  {
                    event: 'event',
                    data: 'TypedEventStreamEnvelope',
                    id: 'integer',
                    idDescription: 'The event seq.',
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
      const city = runningCity(deps, request.params.cityName);
      const resume = cityResume(request.headers['last-event-id'], request.query.after_seq);
      const afterSeq = resume ?? (await city.journal.head());
      const writer = openEventStream(reply, registry, streamOptions(deps));
      // The stream serves one log: when the city leaves (or its log is replaced) the client must re-resolve.
      const unlisten = deps.cities.onChange((change) => {
        if (
          change.city.name === city.name &&
          (change.kind === 'detached' || change.city.journal !== city.journal)
        ) {
          writer.close('ended');
        }
      });
      writer.onClose(unlisten);
      const served = servedEvents(request.query.include);
      void runCityStream(
        city.journal,
        afterSeq,
        writer,
        registry.cityStreams,
        (err) => request.log.warn({ err, city: city.name }, 'city event stream failed'),
        (event) => served(city.journal.name, event),
        request.query.include === 'internal' ? 'internal' : 'served',
      );
      return reply;
    },
  );
}
