import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AppDeps } from './deps.ts';
import { FAMILIES } from './families.ts';
import type { ServedFamily } from './family.ts';
import { newRequestId, registerMiddleware } from './middleware.ts';
import { errorHandler, problem, sendProblem, toProblem } from './problem.ts';
import { actorRoutes } from './routes/actors.ts';
import { cityRoutes } from './routes/cities.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { eventRoutes } from './routes/events.ts';
import { healthRoutes } from './routes/health.ts';
import { openapiRoutes } from './routes/openapi.ts';
import { doctorRoutes } from './routes/doctor.ts';
import { SUPERVISOR_VERSION } from '../actors/supervisor/supervisorApi.ts';
import { withUpstreamNames } from './openapiNames.ts';
import { withProblemResponses } from './openapiProblems.ts';
import { registerSchemas } from '../schemas/eventSchemas.ts';
import { ErrorDetail, ErrorModel } from '../schemas/problem.ts';
import { buildSerializer } from './serializerCache.ts';
import { buildValidator } from './strictBody.ts';
import { registerClusterRouting } from './clusterRouting.ts';
import { registerClusterUpgrade } from './clusterUpgrade.ts';
import { registerBodyParsers } from './bodyParsers.ts';
import { problemOnClientError } from './clientError.ts';

export type App = FastifyInstance;

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type ValidatorFactory = CompilersFactory['buildValidator'];
type SerializerFactory = CompilersFactory['buildSerializer'];

/**
 * Builds the control plane's Fastify app without listening (tests `inject` into it; `main.ts` listens).
 * Unknown body fields are rejected, not stripped: Fastify's default Ajv would silently drop them.
 * `families` are the families whose routes it serves beside the supervisor's own (default: all of them).
 */
export async function buildApp(
  deps: AppDeps,
  options: FastifyServerOptions = {},
  families: readonly ServedFamily[] = FAMILIES,
): Promise<App> {
  const app = Fastify({
    logger: false,
    genReqId: newRequestId,
    bodyLimit: 1024 * 1024,
    // Errors the router raises before any hook runs (a URL that is not valid percent-encoded UTF-8, a path
    // parameter over the length limit) are Problem Details with a request id like every other error.
    frameworkErrors: (err, request, reply) => {
      void sendProblem(reply.header('X-GC-Request-Id', request.id), toProblem(err));
    },
    // And what Node's HTTP parser refuses before Fastify sees a request (a bare CR or LF in a header…).
    clientErrorHandler: problemOnClientError,
    // Bodies are validated without type coercion, queries and paths with it (http/strictBody.ts).
    // (Fastify's declared factory type does not match how it calls the compiler: `{schema, httpPart, …}`.)
    // Compiled validators and serializers are kept per schema object for the process (tests build many apps).
    schemaController: {
      compilersFactory: {
        buildValidator: buildValidator as unknown as ValidatorFactory,
        buildSerializer: buildSerializer as unknown as SerializerFactory,
      },
    },
    ...options,
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerBodyParsers(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      // Upstream's info: clients pin and compare the version with /health's.
      info: { title: 'Gas City Supervisor API', version: SUPERVISOR_VERSION },
    },
    // Shared schemas (`addSchema` + `$ref`) become components named by their `$id`, not `def-N`, and keep
    // `const` (OpenAPI 3.1 is JSON Schema 2020-12; the typed event unions discriminate on it).
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    convertConstToEnum: false,
    transformObject: (documents) =>
      'openapiObject' in documents
        ? withUpstreamNames(withProblemResponses(documents.openapiObject))
        : documents.swaggerObject,
  });

  // Shared so the document's `default` responses can point at them (see withProblemResponses).
  registerSchemas(app, [ErrorDetail, ErrorModel]);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      problem(404, `not_found: no route for ${request.method} ${request.url.split('?')[0]}`),
    ),
  );
  registerMiddleware(app, { readOnly: deps.readOnly, apiToken: deps.config.apiToken });
  if (deps.cluster) registerClusterRouting(app, deps, deps.cluster);

  await app.register(async (scope) => {
    healthRoutes(scope, deps);
    cityRoutes(scope, deps);
    eventRoutes(scope, deps);
    for (const family of families) family.routes(scope, deps);
    doctorRoutes(scope, deps);
    openapiRoutes(scope);
    actorRoutes(scope, deps);
    dashboardRoutes(scope);
  });
  const cluster = deps.cluster;
  // Once every route has added its `upgrade` listener: cluster routing goes in front of them.
  if (cluster)
    app.addHook('onReady', async () => registerClusterUpgrade(app.server, cluster, deps.config.apiToken));
  return app;
}
