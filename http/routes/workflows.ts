import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { CityNameParam, indexedResponse, MutationHeaders } from '../../schemas/beadsCommon.ts';
import {
  WorkflowDeleteQuerySchema,
  WorkflowDeleteSchema,
  WorkflowQuerySchema,
  WorkflowSnapshotSchema,
} from '../../schemas/formulas.ts';
import type { AppDeps } from '../deps.ts';
import { EXTRAS } from './extras.ts';
import { formulasFor, requestScope } from './formulas.ts';

const tags = ['workflows'];
const WorkflowGetQuery = Type.Object(
  { ...WorkflowQuerySchema.properties, ...EXTRAS },
  { additionalProperties: false },
);
const Params = Type.Object({
  cityName: CityNameParam,
  workflow_id: Type.String({ minLength: 1, description: 'Workflow (root bead) ID.' }),
});

/**
 * The molecules family: `GET /workflow/{id}` (every bead of a cooked formula, its edges and progress
 * from the beads' states) and `DELETE` (closes every bead, or deletes them with `delete=true`, in one batch).
 */
export function workflowRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v0/city/:cityName/workflow/:workflow_id',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-workflow-by-workflow-id',
        summary: 'A workflow (molecule): its beads and dependencies',
        description: 'Ours: `?extras=true` adds `progress`, counted from the beads’ states.',
        tags,
        params: Params,
        querystring: WorkflowGetQuery,
        response: { 200: indexedResponse(WorkflowSnapshotSchema, 'The workflow snapshot.') },
      },
    },
    async (request, reply) => {
      const { extras, ...query } = request.query;
      const scope = await requestScope(deps, request.params.cityName, query);
      const service = formulasFor(deps, request.params.cityName);
      const { progress, ...snap } = service.workflow(request.params.workflow_id, scope);
      reply.header('X-GC-Index', String(snap.snapshot_version)).header('X-GC-Cache-Age-S', '0');
      return extras === true ? { ...snap, progress } : snap;
    },
  );

  app.delete(
    '/v0/city/:cityName/workflow/:workflow_id',
    {
      schema: {
        operationId: 'delete-v0-city-by-city-name-workflow-by-workflow-id',
        summary: 'Close (or delete) every bead of a workflow',
        tags,
        params: Params,
        headers: MutationHeaders,
        querystring: WorkflowDeleteQuerySchema,
        response: { 200: WorkflowDeleteSchema },
      },
    },
    async (request) => {
      const scope = await requestScope(deps, request.params.cityName, request.query);
      const service = formulasFor(deps, request.params.cityName);
      return service.teardown(request.params.workflow_id, request.query.delete === true, scope);
    },
  );
}
