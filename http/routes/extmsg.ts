import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { BadRequestError } from '../../actors/runtime/errors.ts';
import {
  CityNameParam,
  indexedResponse,
  MutationHeaders,
  OkResponseSchema,
} from '../../schemas/beadsCommon.ts';
import {
  ConversationGroupParticipantSchema,
  ConversationGroupRecordSchema,
  ExtmsgAdapterInfoSchema,
  listBody,
  SessionBindingRecordSchema,
} from '../../schemas/extmsg.ts';
import {
  ExtMsgAdapterRegisterBodySchema,
  ExtMsgAdapterRegisterOutputSchema,
  ExtMsgAdapterUnregisterBodySchema,
  ExtMsgBindBodySchema,
  ExtMsgBindingsQuerySchema,
  ExtMsgGroupEnsureBodySchema,
  ExtMsgGroupQuerySchema,
  ExtMsgParticipantRemoveBodySchema,
  ExtMsgParticipantUpsertBodySchema,
  ExtMsgUnbindBodySchema,
} from '../../schemas/extmsgBodies.ts';
import { nullableArray } from '../../schemas/beadsCommon.ts';
import type { AppDeps } from '../deps.ts';
import { extmsgMessageRoutes } from './extmsgMessages.ts';
import { extmsgFor, setExtmsgIndexHeaders } from './extmsgService.ts';

const City = Type.Object({ cityName: CityNameParam });
export const EXTMSG_TAGS = ['extmsg'];
const tags = EXTMSG_TAGS;

/**
 * The extmsg family under /v0/city/{cityName}/extmsg: adapters, bindings, groups and participants here,
 * inbound, outbound and transcripts in `extmsgMessages.ts`. Paths, operation ids and statuses are upstream's.
 */
export function extmsgRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  extmsgMessageRoutes(scope, deps);

  app.post(
    '/v0/city/:cityName/extmsg/adapters',
    {
      schema: {
        operationId: 'register-extmsg-adapter',
        summary: 'Register an external messaging adapter',
        description:
          'Registers (or replaces) the adapter of a provider account. Unlike upstream, the registration is durable ' +
          '(it survives a restart) and outbound messages to it are retried until it acknowledges.',
        tags,
        params: City,
        headers: MutationHeaders,
        body: ExtMsgAdapterRegisterBodySchema,
        response: { 201: ExtMsgAdapterRegisterOutputSchema },
      },
    },
    async (request, reply) => {
      const adapter = await extmsgFor(deps, request.params.cityName).registerAdapter(request.body);
      reply.code(201);
      return { status: 'registered', ...adapter };
    },
  );

  app.get(
    '/v0/city/:cityName/extmsg/adapters',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-extmsg-adapters',
        summary: 'List external messaging adapters',
        tags,
        params: City,
        response: { 200: indexedResponse(listBody(ExtmsgAdapterInfoSchema), 'The registered adapters.') },
      },
    },
    async (request, reply) => {
      const service = extmsgFor(deps, request.params.cityName);
      const items = service.adapters();
      setExtmsgIndexHeaders(reply, service);
      return { items, total: items.length };
    },
  );

  app.delete(
    '/v0/city/:cityName/extmsg/adapters',
    {
      schema: {
        operationId: 'delete-v0-city-by-city-name-extmsg-adapters',
        summary: 'Unregister an external messaging adapter',
        tags,
        params: City,
        headers: MutationHeaders,
        body: ExtMsgAdapterUnregisterBodySchema,
        response: { 200: OkResponseSchema },
      },
    },
    async (request) => {
      await extmsgFor(deps, request.params.cityName).unregisterAdapter(request.body);
      return { status: 'unregistered' };
    },
  );

  app.post(
    '/v0/city/:cityName/extmsg/bind',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-extmsg-bind',
        summary: 'Bind a conversation to a session or agent',
        tags,
        params: City,
        headers: MutationHeaders,
        body: ExtMsgBindBodySchema,
        response: { 200: SessionBindingRecordSchema },
      },
    },
    async (request) => extmsgFor(deps, request.params.cityName).bind(request.body),
  );

  app.post(
    '/v0/city/:cityName/extmsg/unbind',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-extmsg-unbind',
        summary: 'End the bindings of a session or agent',
        tags,
        params: City,
        headers: MutationHeaders,
        body: ExtMsgUnbindBodySchema,
        response: {
          200: Type.Object(
            {
              unbound: nullableArray(SessionBindingRecordSchema, {
                description: 'Bindings that were ended.',
              }),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => ({ unbound: await extmsgFor(deps, request.params.cityName).unbind(request.body) }),
  );

  app.get(
    '/v0/city/:cityName/extmsg/bindings',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-extmsg-bindings',
        summary: "List a session's bindings",
        tags,
        params: City,
        querystring: ExtMsgBindingsQuerySchema,
        response: { 200: indexedResponse(listBody(SessionBindingRecordSchema), 'The session’s bindings.') },
      },
    },
    async (request, reply) => {
      const session = request.query.session_id?.trim() ?? '';
      if (session === '')
        throw new BadRequestError('session_id is required', 'invalid', {
          errors: [{ location: 'query.session_id', message: 'session_id is required' }],
        });
      const service = extmsgFor(deps, request.params.cityName);
      const items = service.bindings(session);
      setExtmsgIndexHeaders(reply, service);
      return { items, total: items.length };
    },
  );

  app.get(
    '/v0/city/:cityName/extmsg/groups',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-extmsg-groups',
        summary: 'Look up the group rooted at a conversation',
        tags,
        params: City,
        querystring: ExtMsgGroupQuerySchema,
        response: { 200: ConversationGroupRecordSchema },
      },
    },
    async (request) => extmsgFor(deps, request.params.cityName).group(request.query),
  );

  app.post(
    '/v0/city/:cityName/extmsg/groups',
    {
      schema: {
        operationId: 'ensure-extmsg-group',
        summary: 'Ensure the group rooted at a conversation',
        tags,
        params: City,
        headers: MutationHeaders,
        body: ExtMsgGroupEnsureBodySchema,
        response: { 201: ConversationGroupRecordSchema },
      },
    },
    async (request, reply) => {
      const group = await extmsgFor(deps, request.params.cityName).ensureGroup(request.body);
      reply.code(201);
      return group;
    },
  );

  app.post(
    '/v0/city/:cityName/extmsg/participants',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-extmsg-participants',
        summary: 'Add or replace a group participant',
        tags,
        params: City,
        headers: MutationHeaders,
        body: ExtMsgParticipantUpsertBodySchema,
        response: { 200: ConversationGroupParticipantSchema },
      },
    },
    async (request) => extmsgFor(deps, request.params.cityName).upsertParticipant(request.body),
  );

  app.delete(
    '/v0/city/:cityName/extmsg/participants',
    {
      schema: {
        operationId: 'delete-v0-city-by-city-name-extmsg-participants',
        summary: 'Remove a group participant',
        tags,
        params: City,
        headers: MutationHeaders,
        body: ExtMsgParticipantRemoveBodySchema,
        response: { 200: OkResponseSchema },
      },
    },
    async (request) => {
      await extmsgFor(deps, request.params.cityName).removeParticipant(request.body);
      return { status: 'removed' };
    },
  );
}
