import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { NotFoundError } from '../../actors/runtime/errors.ts';
import { formulaLayers, FORMULA_SERVICE } from '../../actors/formulas/index.ts';
import type { FormulaService } from '../../actors/formulas/index.ts';
import type { WorkflowScope } from '../../machines/formulas/workflowView.ts';
import { CityNameParam, indexedResponse, MutationHeaders } from '../../schemas/beadsCommon.ts';
import {
  FeedBodySchema,
  FormulaCookBodySchema,
  FormulaCookResponseSchema,
  FormulaDetailQuerySchema,
  FormulaDetailSchema,
  FormulaLimitQuerySchema,
  FormulaListBodySchema,
  FormulaPreviewBodySchema,
  FormulaRunsSchema,
  FormulaScopeQuerySchema,
} from '../../schemas/formulas.ts';
import { cityService, runningCity } from '../cityScope.ts';
import { EXTRAS } from './extras.ts';
import type { AppDeps } from '../deps.ts';

const tags = ['formulas'];
/** The list's and detail's queries with `extras` (ours: each formula's `version`). */
const ListQuery = Type.Object(
  { ...FormulaScopeQuerySchema.properties, ...EXTRAS },
  { additionalProperties: false },
);
const DetailQuery = Type.Object(
  { ...FormulaDetailQuerySchema.properties, ...EXTRAS },
  { additionalProperties: false },
);
const PreviewQuery = Type.Object(EXTRAS, { additionalProperties: false });
const CityParams = Type.Object({ cityName: CityNameParam });
const NameParams = Type.Object({
  cityName: CityNameParam,
  name: Type.String({ minLength: 1, pattern: '\\S', description: 'Formula name.' }),
});

/**
 * The formulas service of a running city.
 * @throws NotFoundError while the city is absent or starting; UnavailableError (503) without the service.
 */
export function formulasFor(deps: Pick<AppDeps, 'cities'>, cityName: string): FormulaService {
  return cityService(deps, cityName, FORMULA_SERVICE, 'formulas service');
}

/** Upstream's scope rule: `scope_kind` and `scope_ref` come together; a city scope names this city. */
export function checkScope(cityName: string, q: { scope_kind?: string; scope_ref?: string }): void {
  if (q.scope_kind === undefined && q.scope_ref === undefined) return;
  if (q.scope_kind !== 'city' || q.scope_ref !== cityName)
    throw new NotFoundError(`scope ${q.scope_kind ?? ''}:${q.scope_ref ?? ''} not found`);
}

/**
 * The rig a formula lookup is scoped to (upstream: a rig scope searches the city's layers and the rig's):
 * undefined for the city (no scope, or `city` naming this city).
 * @throws NotFoundError for another city, a rig the city does not have, or another kind.
 */
async function formulaScope(
  deps: Pick<AppDeps, 'cities'>,
  cityName: string,
  q: { scope_kind?: string; scope_ref?: string },
): Promise<string | undefined> {
  if (q.scope_kind !== 'rig' || q.scope_ref === undefined) {
    checkScope(cityName, q);
    return undefined;
  }
  const { rigs } = await formulaLayers(runningCity(deps, cityName).path);
  if (!rigs.some((r) => r.name === q.scope_ref)) throw new NotFoundError(`rig ${q.scope_ref} not found`);
  return q.scope_ref;
}

/**
 * The workflow scope a request names (`scope_kind` with `scope_ref`), undefined when it names none (every
 * scope is then read, as before scopes existed here).
 * @throws NotFoundError as {@link formulaScope}.
 */
export async function requestScope(
  deps: Pick<AppDeps, 'cities'>,
  cityName: string,
  q: { scope_kind?: string; scope_ref?: string },
): Promise<WorkflowScope | undefined> {
  const rig = await formulaScope(deps, cityName, q);
  if (rig !== undefined) return { kind: 'rig', ref: rig };
  return q.scope_kind === undefined ? undefined : { kind: 'city', ref: cityName };
}

const setIndex = (reply: FastifyReply, service: FormulaService) =>
  reply.header('X-GC-Index', String(service.store.index)).header('X-GC-Cache-Age-S', '0');

/**
 * The formulas family under /v0/city/{cityName}: list, detail (two aliases), preview, runs, feed, and our
 * cook. Formulas are read from the city's formula layers, and a rig scope's (`scope_kind=rig`) adds that
 * rig's; a cook writes the whole molecule as one batch. Unknown formula → 404; a file that does not parse, a missing variable or a cycle → 422 naming it.
 */
export function formulaRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/city/:cityName/formulas',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-formulas',
        summary: 'List workflow formulas',
        tags,
        params: CityParams,
        querystring: ListQuery,
        response: { 200: FormulaListBodySchema },
      },
    },
    async (request) => {
      const rig = await formulaScope(deps, request.params.cityName, request.query);
      const service = formulasFor(deps, request.params.cityName);
      const { items, partial, total, broken } = await service.list(rig, request.query.extras === true);
      for (const b of broken) request.log.warn({ formula: b.name, problems: b.problems }, 'formula skipped');
      return { items, partial, total };
    },
  );

  app.get(
    '/v0/city/:cityName/formulas/feed',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-formulas-feed',
        summary: 'Workflow runs, most active first',
        tags,
        params: CityParams,
        querystring: FormulaLimitQuerySchema,
        response: { 200: indexedResponse(FeedBodySchema, 'Feed items.') },
      },
    },
    async (request, reply) => {
      const scope = await requestScope(deps, request.params.cityName, request.query);
      const service = formulasFor(deps, request.params.cityName);
      setIndex(reply, service);
      return { items: service.feed(request.query.limit, scope), partial: false };
    },
  );

  for (const [path, operationId] of [
    ['/v0/city/:cityName/formulas/:name', 'get-v0-city-by-city-name-formulas-by-name'],
    ['/v0/city/:cityName/formula/:name', 'get-v0-city-by-city-name-formula-by-name'],
  ] as const) {
    app.get(
      path,
      {
        schema: {
          operationId,
          summary: 'A formula: its steps, variables and the graph a cook would create',
          tags,
          params: NameParams,
          querystring: DetailQuery,
          response: { 200: FormulaDetailSchema },
        },
      },
      async (request) => {
        const rig = await formulaScope(deps, request.params.cityName, request.query);
        const extras = request.query.extras === true;
        return formulasFor(deps, request.params.cityName).detail(request.params.name, { rig, extras });
      },
    );
  }

  app.post(
    '/v0/city/:cityName/formulas/:name/preview',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-formulas-by-name-preview',
        summary: 'Compile a formula with variables; nothing is written',
        tags,
        params: NameParams,
        headers: MutationHeaders,
        querystring: PreviewQuery,
        body: FormulaPreviewBodySchema,
        response: { 200: FormulaDetailSchema },
      },
    },
    async (request) => {
      const rig = await formulaScope(deps, request.params.cityName, request.body);
      const service = formulasFor(deps, request.params.cityName);
      // The preview shows what a cook would create, so it checks the variables as a cook does.
      return service.detail(request.params.name, {
        vars: request.body.vars ?? {},
        strict: true,
        rig,
        extras: request.query.extras === true,
      });
    },
  );

  app.get(
    '/v0/city/:cityName/formulas/:name/runs',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-formulas-by-name-runs',
        summary: 'Recent runs of a formula',
        tags,
        params: NameParams,
        querystring: FormulaLimitQuerySchema,
        response: { 200: FormulaRunsSchema },
      },
    },
    async (request) => {
      const scope = await requestScope(deps, request.params.cityName, request.query);
      return formulasFor(deps, request.params.cityName).runs(request.params.name, request.query.limit, scope);
    },
  );

  app.post(
    '/v0/city/:cityName/formulas/:name/cook',
    {
      schema: {
        operationId: 'cook-formula',
        summary: 'Cook a formula into a molecule (its whole bead graph, one atomic batch)',
        tags,
        params: NameParams,
        headers: MutationHeaders,
        body: Type.Optional(FormulaCookBodySchema),
        response: { 201: indexedResponse(FormulaCookResponseSchema, 'The workflow created.') },
      },
    },
    async (request, reply) => {
      const service = formulasFor(deps, request.params.cityName);
      const body = request.body ?? {};
      const { root, beads } = await service.cook(request.params.name, {
        ...(body.vars ? { vars: body.vars } : {}),
        ...(body.target ? { target: body.target } : {}),
        ...(body.title ? { title: body.title } : {}),
        ...(body.root_only ? { rootOnly: true } : {}),
      });
      setIndex(reply, service).code(201);
      return {
        workflow_id: root.id,
        root_bead_id: root.id,
        formula: request.params.name,
        bead_ids: beads.map((b) => b.id),
      };
    },
  );
}
