import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AgentApi, AgentOutput } from '../../actors/agents/index.ts';
import { AGENT_SERVICE } from '../../actors/agents/index.ts';
import { NotFoundError } from '../../actors/runtime/errors.ts';
import { QueryInteger } from '../../schemas/queryIntegerSchema.ts';
import { sseResponseSchema } from '../../schemas/eventStreamFrames.ts';
import type { AppDeps } from '../deps.ts';
import { cityResume } from '../events/resume.ts';
import { openEventStream } from '../sse/open.ts';
import { streamRegistry } from '../sse/registry.ts';
import { jsonSerializer, streamOptions } from './eventRouteKit.ts';
import { AGENT_ROUTE_FORMS, agentName, agentTags as tags, type AgentPathParams } from './agentsParams.ts';
import { agentApiFor, present } from './agentsService.ts';
import { agentOutputPollMs, runAgentStream, type Sent } from './agentsStream.ts';

const OutputQuery = Type.Object(
  {
    tail: Type.Optional(
      QueryInteger(
        'How many of the latest compaction segments to return: absent for the default (1), 0 for all.',
      ),
    ),
    before: Type.Optional(
      Type.String({ description: 'A message id: return the turns before it (`truncated_before_message`).' }),
    ),
  },
  { additionalProperties: false },
);

const StreamHeaders = Type.Object({
  'Last-Event-ID': Type.Optional(
    Type.String({
      description: 'SSE reconnect position: the `id:` of the last `turn` frame received (a turn count).',
    }),
  ),
});

const STREAM_DESCRIPTION =
  'Frames `event: turn` (an AgentOutputResponse with only the turns not sent yet; `id:` is the position ' +
  "of its last turn in the conversation) and `event: heartbeat`. It starts with the conversation's " +
  'latest turns (its default page), or after Last-Event-ID; a screen (`format: text`, no `id:`) is sent ' +
  'whenever it changes. Header `GC-Agent-Status: stopped` when the agent is not running: what follows ' +
  'is its recorded conversation. An agent with neither a session log nor a running session is a 404 ' +
  'before the stream starts.';

/** The agent's output for a stream's start, or the 404 a stream answers instead. */
async function streamSource(api: AgentApi, name: string): Promise<{ running: boolean; output: AgentOutput }> {
  const view = await api.get(name);
  const output = await api.output(name, {});
  if (!view.running && output.format !== 'conversation') {
    throw new NotFoundError(`agent ${name} has no session log and is not running`);
  }
  return { running: view.running, output };
}

/** `GET …/output` and `GET …/output/stream` of one agent, in both path forms. */
export function agentOutputRoutes(app: FastifyInstance, deps: AppDeps): void {
  const registry = streamRegistry(deps);
  for (const form of AGENT_ROUTE_FORMS) {
    app.get<{ Params: AgentPathParams; Querystring: Static<typeof OutputQuery> }>(
      `${form.path}/output`,
      {
        schema: {
          operationId: `get-v0-city-by-city-name-${form.stem}-output`,
          summary: `Read the output of ${form.what}`,
          description:
            'Turns of its conversation (from its session log, `format: conversation`, paged with `tail` ' +
            'and `before`), or without a log its screen (`format: text`, one `output` turn). Neither a log ' +
            'nor a running session: 404.',
          tags,
          params: form.params,
          querystring: OutputQuery,
          response: { 200: { description: 'The output.', ...Type.Ref('AgentOutputResponse') } },
        },
      },
      async (request) => {
        const api = agentApiFor(deps, request.params.cityName);
        const { tail, before } = request.query;
        const options: { tail?: number; before?: string } = {};
        if (tail !== undefined) options.tail = tail;
        if (present(before) !== undefined) options.before = before;
        return api.output(agentName(request.params), options);
      },
    );

    app.get<{ Params: AgentPathParams }>(
      `${form.path}/output/stream`,
      {
        schema: {
          operationId: form.streamId,
          summary: `Stream the output of ${form.what} (SSE)`,
          description: STREAM_DESCRIPTION,
          tags,
          params: form.params,
          headers: StreamHeaders,
          response: {
            200: {
              description: 'The output stream.',
              headers: {
                'GC-Agent-Status': {
                  type: 'string',
                  description:
                    '`stopped` when the agent was not running as the stream began (absent when it was).',
                },
              },
              content: {
                'text/event-stream': {
                  schema: sseResponseSchema([
                    {
                      event: 'turn',
                      data: 'AgentOutputResponse',
                      id: 'integer',
                      idDescription: 'Position of its last turn in the conversation (absent for a screen).',
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
        const { cityName } = request.params;
        const name = agentName(request.params);
        const api = agentApiFor(deps, cityName);
        const resume = cityResume(request.headers['last-event-id'], undefined);
        const { running, output } = await streamSource(api, name);
        if (!running) reply.header('GC-Agent-Status', 'stopped');
        const sent: Sent =
          resume === undefined ? undefined : { format: 'conversation', index: resume, timestamp: undefined };
        const writer = openEventStream(reply, registry, streamOptions(deps));
        // The stream reads one city's agent service: when the city leaves or replaces it, the client re-resolves.
        const unlisten = deps.cities.onChange((change) => {
          if (
            change.city.name === cityName &&
            (change.kind === 'detached' || change.city.services[AGENT_SERVICE] !== api)
          ) {
            writer.close('ended');
          }
        });
        writer.onClose(unlisten);
        void runAgentStream(
          {
            api,
            name,
            writer,
            pollMs: agentOutputPollMs(deps),
            onError: (err) =>
              request.log.warn({ err, city: cityName, agent: name }, 'agent output stream failed'),
          },
          output,
          sent,
        );
        return reply;
      },
    );
  }
}
