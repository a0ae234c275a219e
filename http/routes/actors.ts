import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { UnavailableError } from '../../actors/runtime/errors.ts';
import type { ActorView } from '../../actors/inspect/index.ts';
import { ActorEntry, ActorListBody } from '../../schemas/actors.ts';
import { HeartbeatEvent } from '../../schemas/eventEnvelopes.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import { sseResponseSchema } from '../../schemas/eventStreamFrames.ts';
import type { AppDeps } from '../deps.ts';
import { openEventStream } from '../sse/open.ts';
import { streamRegistry } from '../sse/registry.ts';
import { jsonSerializer, streamOptions } from './eventRouteKit.ts';

/**
 * The live actor view's API (read-only, ours): `GET /v0/actors` lists every live actor with its state
 * value and a context summary; `GET /v0/actors/stream` sends that list as one `actors` frame, then an
 * `actor` frame per change (an actor that ended comes once more with `status: done`), and heartbeats.
 * The frames carry no `id:`: the view is state, not a log, so a reconnect starts from a fresh list.
 * Nothing is watched while no stream is open.
 */
export function actorRoutes(app: FastifyInstance, deps: AppDeps): void {
  const viewOf = (): ActorView => {
    if (!deps.actors) throw new UnavailableError('no live actor view in this app', 'unavailable');
    return deps.actors;
  };
  registerSchemas(app, [HeartbeatEvent, ActorEntry, ActorListBody]);
  const registry = streamRegistry(deps);
  app.get(
    '/v0/actors',
    {
      schema: {
        operationId: 'list-actors',
        summary: 'List the live actors (supervisor, cities, requests, sessions)',
        tags: ['inspect'],
        response: { 200: { description: 'Every live actor.', ...Type.Ref('ActorListBody') } },
      },
      serializerCompiler: jsonSerializer,
    },
    async () => {
      const items = await viewOf().list();
      return { items, total: items.length };
    },
  );
  app.get(
    '/v0/actors/stream',
    {
      schema: {
        operationId: 'stream-actors',
        summary: 'Stream the live actors (SSE)',
        description:
          'Frames `event: actors` (the whole list, first), `event: actor` (one actor that changed, appeared, ' +
          'or ended with status done) and `event: heartbeat`. No `id:`: a reconnect gets a fresh list.',
        tags: ['inspect'],
        response: {
          200: {
            description: 'The actor stream.',
            content: {
              'text/event-stream': {
                schema: sseResponseSchema([
                  { event: 'actors', data: 'ActorListBody' },
                  { event: 'actor', data: 'ActorEntry' },
                  { event: 'heartbeat', data: 'HeartbeatEvent' },
                ]),
              },
            },
          },
        },
      },
      serializerCompiler: jsonSerializer,
      exposeHeadRoute: false,
    },
    async (_request, reply) => {
      const view = viewOf();
      const writer = openEventStream(reply, registry, streamOptions(deps));
      const pending: ActorEntry[] = [];
      let ready = false;
      const watching = await view.watch((entry) => {
        if (ready) writer.send('actor', JSON.stringify(entry));
        else pending.push(entry);
      });
      if (writer.closed) {
        watching.stop();
        return reply;
      }
      writer.onClose(() => watching.stop());
      writer.send('actors', JSON.stringify({ items: watching.initial, total: watching.initial.length }));
      for (const entry of pending) writer.send('actor', JSON.stringify(entry));
      ready = true;
      return reply;
    },
  );
}
