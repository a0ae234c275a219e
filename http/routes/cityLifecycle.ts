import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { unknownBootstrapProfile } from '../../actors/supervisor/cityCreate.ts';
import {
  AsyncAcceptedResponse,
  CityCreateRequest,
  CityNameParams,
  CityRegisterRequest,
  MutationHeaders,
} from '../../schemas/cities.ts';
import type { AppDeps } from '../deps.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import { Type } from 'typebox';

interface AjvError {
  keyword: string;
  instancePath: string;
}

/** `POST /v0/city` and `POST /v0/city/{cityName}/unregister`: the async city operations (202). */
export function cityLifecycleRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  registerSchemas(fastify, [AsyncAcceptedResponse]);

  app.post(
    '/v0/city',
    {
      // Validation failures reach the handler so an unknown bootstrap profile gets upstream's own detail.
      attachValidation: true,
      schema: {
        operationId: 'post-v0-city',
        summary: 'Create a city (async)',
        description:
          'Scaffolds and registers the city, records `city.created` in its log, and answers 202 with a request id and the supervisor cursor captured before the work started. Completion arrives on /v0/events/stream as exactly one `request.result.city.create` or `request.failed` with that request_id.',
        tags: ['cities'],
        headers: MutationHeaders,
        body: CityCreateRequest,
        response: { 202: { description: 'Accepted.', ...Type.Ref('AsyncAcceptedResponse') } },
      },
    },
    async (request, reply) => {
      const invalid = request.validationError as (Error & { validation?: AjvError[] }) | undefined;
      if (invalid) {
        const onlyProfile = invalid.validation?.every(
          (e) => e.keyword === 'enum' && e.instancePath === '/bootstrap_profile',
        );
        if (onlyProfile) throw unknownBootstrapProfile(request.body.bootstrap_profile);
        throw invalid;
      }
      const accepted = await deps.supervisor.createCity(request.body);
      return reply.code(202).send(accepted);
    },
  );

  app.post(
    '/v0/cities/register',
    {
      schema: {
        operationId: 'post-v0-cities-register',
        summary: 'Register an existing city directory (async; ours)',
        description:
          'Registers a directory that already holds a city.toml (as `gc init` writes it): completes its `.gc/` runtime tree and log file when missing, records `city.created` and answers 202 like a create; the city starts on the next reconciler pass and exactly one `request.result.city.create` or `request.failed` with the request_id follows on /v0/events/stream. 422 without a city.toml; 409 when the directory or the name is already registered.',
        tags: ['cities'],
        headers: MutationHeaders,
        body: CityRegisterRequest,
        response: { 202: { description: 'Accepted.', ...Type.Ref('AsyncAcceptedResponse') } },
      },
    },
    async (request, reply) => {
      const accepted = await deps.supervisor.registerCity(request.body);
      return reply.code(202).send(accepted);
    },
  );

  app.post(
    '/v0/city/:cityName/unregister',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-unregister',
        summary: 'Unregister a city (async)',
        description:
          'Records `city.unregister_requested` in the city log, removes the registry entry and answers 202; the controller stops on the next reconciler pass and exactly one `request.result.city.unregister` or `request.failed` follows on /v0/events/stream. The city directory is not touched.',
        tags: ['cities'],
        headers: MutationHeaders,
        params: CityNameParams,
        response: { 202: { description: 'Accepted.', ...Type.Ref('AsyncAcceptedResponse') } },
      },
    },
    async (request, reply) => {
      const accepted = await deps.supervisor.unregisterCity(request.params.cityName);
      return reply.code(202).send(accepted);
    },
  );
}
