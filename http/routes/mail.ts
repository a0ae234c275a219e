import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { BadRequestError, NotFoundError } from '../../actors/runtime/errors.ts';
import { countMail, listMail, mailThread } from '../../machines/beads/mailQueries.ts';
import { isMessage, toMessage } from '../../machines/beads/mailView.ts';
import { pageSize } from '../../machines/beads/paging.ts';
import { RIG_KEY } from '../../machines/beads/model.ts';
import {
  CityNameParam,
  IdempotentMutationHeaders,
  indexedResponse,
  MutationHeaders,
  OkResponseSchema,
} from '../../schemas/beadsCommon.ts';
import {
  MailCountBodySchema,
  MailCountQuerySchema,
  MailListBodySchema,
  MailListQuerySchema,
  MailReplyBodySchema,
  MailRigQuerySchema,
  MailSendBodySchema,
  MessageSchema,
} from '../../schemas/mail.ts';
import { MAX_WAIT_MS, parseBlockingQuery, waitForStore } from '../blockingQuery.ts';
import type { AppDeps } from '../deps.ts';
import { cursorPosition } from './beadsQueryParams.ts';
import { beadStoreFor, setIndexHeaders } from './beadsService.ts';

const tags = ['mail'];
const CityParams = Type.Object({ cityName: CityNameParam });
const MessageParams = Type.Object({
  cityName: CityNameParam,
  id: Type.String({ description: 'Message ID.' }),
});

/**
 * The mail family under /v0/city/{cityName}: messages are beads of type `message` in the city's bead
 * store. Send and reply honour Idempotency-Key; read, mark-unread, archive and delete write a bead
 * event plus the matching `mail.*` notice. `?rig=` on the per-message routes is only a hint (one store
 * per city holds every rig's mail), except that a message of another rig is not found through it.
 */
export function mailRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/city/:cityName/mail',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-mail',
        summary: 'List messages (newest first; unread only unless status=all)',
        tags,
        params: CityParams,
        querystring: MailListQuerySchema,
        response: { 200: indexedResponse(MailListBodySchema, 'Messages.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const { cursor, limit, index, wait, agent, rig } = request.query;
      const status = request.query.status || 'unread';
      if (status !== 'unread' && status !== 'all') {
        throw new BadRequestError(`unsupported status filter: ${status}; supported: unread, all`);
      }
      const before = cursorPosition(cursor);
      const blocking = parseBlockingQuery({ index, wait }, MAX_WAIT_MS);
      if (blocking) await waitForStore(reply, store, blocking);
      const page = listMail(store.model, { agent, rig, status }, pageSize(limit), before);
      setIndexHeaders(reply, store);
      return {
        items: page.items,
        total: page.total,
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
      };
    },
  );

  app.post(
    '/v0/city/:cityName/mail',
    {
      schema: {
        operationId: 'send-mail',
        summary: 'Send a message',
        tags,
        params: CityParams,
        headers: IdempotentMutationHeaders,
        body: MailSendBodySchema,
        response: { 201: indexedResponse(MessageSchema, 'The message sent.') },
      },
      // JSON bodies are typed: no coercion, as upstream (`priority: "1"` is a 422).
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const { message } = await store.sendMail(request.body, {
        idempotencyKey: request.headers['idempotency-key'],
      });
      setIndexHeaders(reply, store).code(201);
      return message;
    },
  );

  app.get(
    '/v0/city/:cityName/mail/count',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-mail-count',
        summary: 'Count open and unread messages',
        tags,
        params: CityParams,
        querystring: MailCountQuerySchema,
        response: { 200: indexedResponse(MailCountBodySchema, 'Total and unread counts.', false) },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      reply.header('X-GC-Cache-Age-S', '0');
      return countMail(store.model, request.query);
    },
  );

  app.get(
    '/v0/city/:cityName/mail/thread/:id',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-mail-thread-by-id',
        summary: 'A conversation, oldest first (by thread ID or any message ID in it)',
        tags,
        params: Type.Object({
          cityName: CityNameParam,
          id: Type.String({ description: 'Thread or message ID.' }),
        }),
        querystring: MailRigQuerySchema,
        response: { 200: indexedResponse(MailListBodySchema, 'Messages.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const items = mailThread(store.model, request.params.id, request.query.rig || undefined);
      setIndexHeaders(reply, store);
      return { items, total: items.length };
    },
  );

  app.get(
    '/v0/city/:cityName/mail/:id',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-mail-by-id',
        summary: 'Get a message (without marking it read)',
        tags,
        params: MessageParams,
        querystring: MailRigQuerySchema,
        response: { 200: indexedResponse(MessageSchema, 'The message.') },
      },
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const bead = store.model.beads.get(request.params.id)?.bead;
      const rig = request.query.rig;
      if (!isMessage(bead) || (rig && (bead.metadata?.[RIG_KEY] ?? '') !== rig)) {
        throw new NotFoundError(`message ${request.params.id} not found`);
      }
      setIndexHeaders(reply, store);
      return toMessage(bead);
    },
  );

  app.post(
    '/v0/city/:cityName/mail/:id/reply',
    {
      schema: {
        operationId: 'reply-mail',
        summary: 'Reply to a message (to its sender, in its thread)',
        tags,
        params: MessageParams,
        querystring: MailRigQuerySchema,
        headers: IdempotentMutationHeaders,
        body: MailReplyBodySchema,
        response: { 201: indexedResponse(MessageSchema, 'The message sent.') },
      },
      // JSON bodies are typed: no coercion, as upstream (`priority: "1"` is a 422).
    },
    async (request, reply) => {
      const store = beadStoreFor(deps, request.params.cityName);
      const { message } = await store.replyMail(request.params.id, request.body ?? {}, {
        idempotencyKey: request.headers['idempotency-key'],
      });
      setIndexHeaders(reply, store).code(201);
      return message;
    },
  );

  const actions = [
    [
      'POST',
      '/v0/city/:cityName/mail/:id/read',
      'post-v0-city-by-city-name-mail-by-id-read',
      'markMailRead',
      'read',
    ],
    [
      'POST',
      '/v0/city/:cityName/mail/:id/mark-unread',
      'post-v0-city-by-city-name-mail-by-id-mark-unread',
      'markMailUnread',
      'unread',
    ],
    [
      'POST',
      '/v0/city/:cityName/mail/:id/archive',
      'post-v0-city-by-city-name-mail-by-id-archive',
      'archiveMail',
      'archived',
    ],
    [
      'DELETE',
      '/v0/city/:cityName/mail/:id',
      'delete-v0-city-by-city-name-mail-by-id',
      'deleteMail',
      'deleted',
    ],
  ] as const;
  for (const [method, url, operationId, command, status] of actions) {
    app.route({
      method,
      url,
      schema: {
        operationId,
        summary: `Mark a message ${status}`,
        tags,
        params: MessageParams,
        querystring: MailRigQuerySchema,
        headers: MutationHeaders,
        response: { 200: OkResponseSchema },
      },
      handler: async (request) => {
        await beadStoreFor(deps, request.params.cityName)[command](request.params.id);
        return { status };
      },
    });
  }
}
