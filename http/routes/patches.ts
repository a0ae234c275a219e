import type { FastifyInstance } from 'fastify';
import { Type, type TObject, type TSchema } from 'typebox';
import type { PatchKind } from '../../actors/config/index.ts';
import { CityNameParam, indexedResponse, MutationHeaders } from '../../schemas/beadsCommon.ts';
import { registerSchemas } from '../../schemas/eventSchemas.ts';
import {
  AgentPatchSetInputBody,
  PATCH_SCHEMAS,
  ProviderPatchSetInputBody,
  RigPatchSetInputBody,
} from '../../schemas/patches.ts';
import type { AppDeps } from '../deps.ts';
import { CityParams, CONFIG_ACTOR, configApiFor, setConfigIndexHeaders } from './configService.ts';

interface Family {
  kind: PatchKind;
  /** The collection's path segment and operation id part (`agents`). */
  plural: string;
  record: string;
  body: TSchema;
  /** The per-patch routes: path, operation id stem, parameters, and the key they address. */
  forms: Array<{ path: string; stem: string; params: TObject; key: (p: Record<string, string>) => string }>;
}

const base = { cityName: CityNameParam };
const FAMILIES: Family[] = [
  {
    kind: 'agent',
    plural: 'agents',
    record: 'AgentPatch',
    body: AgentPatchSetInputBody,
    forms: [
      {
        path: 'agent/:base',
        stem: 'agent-by-base',
        params: Type.Object({
          ...base,
          base: Type.String({ description: 'Agent patch name (unqualified).' }),
        }),
        key: (p) => p.base!,
      },
      {
        path: 'agent/:dir/:base',
        stem: 'agent-by-dir-by-base',
        params: Type.Object({
          ...base,
          dir: Type.String({ description: 'Agent directory (rig name).' }),
          base: Type.String({ description: 'Agent base name.' }),
        }),
        key: (p) => `${p.dir}/${p.base}`,
      },
    ],
  },
  {
    kind: 'provider',
    plural: 'providers',
    record: 'ProviderPatch',
    body: ProviderPatchSetInputBody,
    forms: [
      {
        path: 'provider/:name',
        stem: 'provider-by-name',
        params: Type.Object({ ...base, name: Type.String({ description: 'Provider patch name.' }) }),
        key: (p) => p.name!,
      },
    ],
  },
  {
    kind: 'rig',
    plural: 'rigs',
    record: 'RigPatch',
    body: RigPatchSetInputBody,
    forms: [
      {
        path: 'rig/:name',
        stem: 'rig-by-name',
        params: Type.Object({ ...base, name: Type.String({ description: 'Rig patch name.' }) }),
        key: (p) => p.name!,
      },
    ],
  },
];

/**
 * The patches family (14 operations): `[[patches.agent]]`, `[[patches.providers]]` and `[[patches.rigs]]`
 * of city.toml, which override agents, providers and rigs whatever layer (pack or city file) defines them.
 * PUT creates or merges the patch of the body's target; every write goes through the one config writer.
 */
export function patchRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerSchemas(app, PATCH_SCHEMAS);
  const tags = ['patches'];
  for (const f of FAMILIES) {
    app.get<{ Params: { cityName: string } }>(
      `/v0/city/:cityName/patches/${f.plural}`,
      {
        schema: {
          operationId: `get-v0-city-by-city-name-patches-${f.plural}`,
          summary: `List ${f.kind} patches`,
          tags,
          params: CityParams,
          response: { 200: indexedResponse({ ...Type.Ref(`ListBody${f.record}`) }, 'The patches.') },
        },
      },
      async (request, reply) => {
        const api = configApiFor(deps, request.params.cityName);
        const items = await api.patches(f.kind);
        setConfigIndexHeaders(reply, api);
        return { items, total: items.length };
      },
    );

    app.put<{ Params: { cityName: string }; Body: Record<string, unknown> }>(
      `/v0/city/:cityName/patches/${f.plural}`,
      {
        schema: {
          operationId: `put-v0-city-by-city-name-patches-${f.plural}`,
          summary: `Set a ${f.kind} patch`,
          description:
            `Creates the patch of the ${f.kind} the body names, or merges the given fields into it (\`env\` ` +
            'key by key). Without `name` it is a 422 naming `body.name`; a target defined nowhere is a 422 ' +
            'naming the patch.',
          tags,
          params: CityParams,
          headers: MutationHeaders,
          body: f.body,
          response: { 200: { description: 'Set.', ...Type.Ref('PatchOKResponseBody') } },
        },
      },
      async (request) =>
        configApiFor(deps, request.params.cityName).putPatch(f.kind, request.body, CONFIG_ACTOR),
    );

    for (const form of f.forms) {
      const path = `/v0/city/:cityName/patches/${form.path}`;
      app.get<{ Params: Record<string, string> & { cityName: string } }>(
        path,
        {
          schema: {
            operationId: `get-v0-city-by-city-name-patches-${form.stem}`,
            summary: `Get a ${f.kind} patch`,
            tags,
            params: form.params,
            response: { 200: indexedResponse({ ...Type.Ref(f.record) }, 'The patch.') },
          },
        },
        async (request, reply) => {
          const api = configApiFor(deps, request.params.cityName);
          const body = await api.patch(f.kind, form.key(request.params));
          setConfigIndexHeaders(reply, api);
          return body;
        },
      );
      app.delete<{ Params: Record<string, string> & { cityName: string } }>(
        path,
        {
          schema: {
            operationId: `delete-v0-city-by-city-name-patches-${form.stem}`,
            summary: `Delete a ${f.kind} patch`,
            description: 'Its target goes back to what its layer defines. No such patch is a 404.',
            tags,
            params: form.params,
            headers: MutationHeaders,
            response: { 200: { description: 'Deleted.', ...Type.Ref('PatchDeletedResponseBody') } },
          },
        },
        async (request) =>
          configApiFor(deps, request.params.cityName).deletePatch(
            f.kind,
            form.key(request.params),
            CONFIG_ACTOR,
          ),
      );
    }
  }
}
