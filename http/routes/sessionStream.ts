import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../actors/runtime/errors.ts';
import { SessionStream, type SessionStreamOptions, transcriptFormat } from '../../actors/sessions/index.ts';
import { sseResponseSchema } from '../../schemas/eventStreamFrames.ts';
import { SessionStreamQuery } from '../../schemas/sessionTranscript.ts';
import type { AppDeps } from '../deps.ts';
import { openEventStream } from '../sse/open.ts';
import { streamRegistry } from '../sse/registry.ts';
import { streamOptions } from './eventRouteKit.ts';
import { sessionExtrasFor } from './sessionExtras.ts';
import { SessionParams, sessionTags as tags } from './sessionsParams.ts';

/** Timing of the session streams (tests and the bench shorten them). */
export const sessionStreamTiming: SessionStreamOptions = {};

/**
 * `GET /session/{id}/stream` (SSE): `turn` (conversation) or `message` (raw) frames as the agent's log grows,
 * `activity`, `pending` and `heartbeat`; headers `GC-Session-State` (the state when the stream began) and
 * `GC-Session-Status: stopped` when the process is not running. Frames with messages carry the newest
 * message's uuid as `id:`, so `Last-Event-ID` resumes after it (upstream's stream does not resume). A closed
 * session answers one snapshot and `activity: idle`, then ends. Setup errors are Problem Details before the
 * 200: an unknown session, a bad format, or a session with neither a log nor a running process (404).
 */
export function sessionStreamRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const registry = streamRegistry(deps);
  app.get(
    '/v0/city/:cityName/session/:id/stream',
    {
      schema: {
        operationId: 'stream-session',
        summary: "Stream a session's conversation, activity and pending prompts (SSE)",
        description:
          'Frames `turn` (format=conversation) or `message` (format=raw) with `id:` = the newest message ' +
          'uuid, `activity`, `pending` and `heartbeat` (no id). Last-Event-ID resumes after that message. ' +
          "The frame schemas leave `id:` out: upstream's declare an integer, ours is a uuid.",
        tags,
        params: SessionParams,
        querystring: SessionStreamQuery,
        response: {
          200: {
            description: 'The session stream.',
            headers: {
              'GC-Session-State': { type: 'string', description: 'The session state when the stream began.' },
              'GC-Session-Status': {
                type: 'string',
                description: '`stopped` when the process was not running when the stream began.',
              },
            },
            content: {
              'text/event-stream': {
                schema: sseResponseSchema([
                  {
                    event: 'turn',
                    data: 'SessionStreamMessageEvent',
                  },
                  {
                    event: 'message',
                    data: 'SessionStreamRawMessageEvent',
                  },
                  { event: 'activity', data: 'SessionActivityEvent' },
                  { event: 'pending', data: 'PendingInteraction' },
                  { event: 'heartbeat', data: 'HeartbeatEvent' },
                ]),
              },
            },
          },
        },
      },
      exposeHeadRoute: false,
    },
    async (request, reply) => {
      const { transcripts } = sessionExtrasFor(deps, request.params.cityName);
      const s = transcripts.resolve(request.params.id);
      const format = transcriptFormat(request.query.format === '' ? undefined : request.query.format);
      const running = transcripts.running(s);
      if (!running && !s.closed && !(await transcripts.locate(s)))
        throw new NotFoundError(`session ${s.id} has no conversation log and is not running`);
      reply.header('GC-Session-State', s.state);
      if (!running) reply.header('GC-Session-Status', 'stopped');
      const lastEventId = request.headers['last-event-id'];
      const writer = openEventStream(reply, registry, streamOptions(deps));
      const sink = {
        send: (f: { event: string; data: string; id?: string }) => writer.send(f.event, f.data, f.id),
        ready: () => writer.ready(),
        get closed() {
          return writer.closed;
        },
      };
      const stream = new SessionStream(transcripts, s, format, sink, sessionStreamTiming);
      writer.onClose(() => stream.close());
      const done = s.closed
        ? stream.snapshot()
        : stream.run(typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : undefined);
      void done
        .catch((err: unknown) => request.log.warn({ err, session: s.id }, 'session stream failed'))
        .finally(() => writer.close('ended'));
      return reply;
    },
  );
}
