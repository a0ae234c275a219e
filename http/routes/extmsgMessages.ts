import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  CityNameParam,
  indexedResponse,
  MutationHeaders,
  OkResponseSchema,
} from '../../schemas/beadsCommon.ts';
import {
  ConversationTranscriptRecordSchema,
  InboundResultSchema,
  listBody,
  OutboundResultSchema,
} from '../../schemas/extmsg.ts';
import {
  ExtMsgInboundBodySchema,
  ExtMsgOutboundBodySchema,
  ExtMsgTranscriptAckBodySchema,
  ExtMsgTranscriptQuerySchema,
} from '../../schemas/extmsgBodies.ts';
import type { AppDeps } from '../deps.ts';
import { extmsgFor, setExtmsgIndexHeaders } from './extmsgService.ts';

const City = Type.Object({ cityName: CityNameParam });
const tags = ['extmsg'];

/** Inbound, outbound and transcript operations of the extmsg family (upstream's paths, ids and statuses). */
export function extmsgMessageRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v0/city/:cityName/extmsg/inbound',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-extmsg-inbound',
        summary: 'Route a message an adapter received',
        description:
          'Idempotent by the message’s provider_message_id within its conversation: a duplicate is answered ' +
          'with the first result and records nothing.',
        tags,
        params: City,
        headers: MutationHeaders,
        body: ExtMsgInboundBodySchema,
        response: { 200: InboundResultSchema },
      },
    },
    async (request) => extmsgFor(deps, request.params.cityName).inbound(request.body),
  );

  app.post(
    '/v0/city/:cityName/extmsg/outbound',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-extmsg-outbound',
        summary: "Publish a session's message to a conversation",
        description:
          'Records the message and its delivery, then answers with the first attempt. Unlike upstream, an ' +
          'undelivered message is not lost: the supervisor retries it with backoff until the adapter ' +
          'acknowledges (never sending it again after that) or it reaches the dead letter.',
        tags,
        params: City,
        headers: MutationHeaders,
        body: ExtMsgOutboundBodySchema,
        response: { 200: OutboundResultSchema },
      },
    },
    async (request) => extmsgFor(deps, request.params.cityName).outbound(request.body),
  );

  app.get(
    '/v0/city/:cityName/extmsg/transcript',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-extmsg-transcript',
        summary: "Page through a conversation's transcript",
        tags,
        params: City,
        querystring: ExtMsgTranscriptQuerySchema,
        response: {
          200: indexedResponse(listBody(ConversationTranscriptRecordSchema), 'Entries in sequence order.'),
        },
      },
    },
    async (request, reply) => {
      const service = extmsgFor(deps, request.params.cityName);
      const page = service.transcript(request.query);
      setExtmsgIndexHeaders(reply, service);
      return page;
    },
  );

  app.post(
    '/v0/city/:cityName/extmsg/transcript/ack',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-extmsg-transcript-ack',
        summary: "Move a session's read position in a conversation",
        tags,
        params: City,
        headers: MutationHeaders,
        body: ExtMsgTranscriptAckBodySchema,
        response: { 200: OkResponseSchema },
      },
    },
    async (request) => {
      await extmsgFor(deps, request.params.cityName).ack(request.body);
      return { status: 'acked' };
    },
  );
}
