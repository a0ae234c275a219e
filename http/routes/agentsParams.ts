import { Type, type TObject, type TString } from 'typebox';
import { CityNameParam } from '../../schemas/beadsCommon.ts';

/** The OpenAPI tag of the agent family. */
export const agentTags = ['agents'];

/** Path of the collection routes. */
export const AgentCityParams = Type.Object({ cityName: CityNameParam });

/** `{base}` of a city agent's routes. */
export const AgentBaseParams = Type.Object({
  cityName: CityNameParam,
  base: Type.String({ description: 'Agent name (unqualified: a city agent).' }),
});

/** `{dir}/{base}` of a rig agent's routes: the qualified name `dir/base`. */
export const AgentQualifiedParams = Type.Object({
  cityName: CityNameParam,
  dir: Type.String({ description: 'Agent directory (rig name).' }),
  base: Type.String({ description: 'Agent base name.' }),
});

/** Path parameters of a per-agent route in either form. */
export interface AgentPathParams {
  cityName: string;
  base: string;
  dir?: string;
}

/**
 * The two forms of every per-agent route: `/agent/{base}` and `/agent/{dir}/{base}`, with upstream's
 * operation id stem of each (`…-agent-by-base`, `…-agent-by-dir-by-base`) and the suffix of its stream's id.
 */
export interface AgentRouteForm {
  /** Fastify path of the agent under /v0/city/:cityName. */
  path: string;
  params: TObject<{ cityName: TString; base: TString; dir?: TString }>;
  /** The stem of upstream's operation ids: `agent-by-base` or `agent-by-dir-by-base`. */
  stem: string;
  /** `stream-agent-output` or `stream-agent-output-qualified`. */
  streamId: string;
  /** What the summaries call the agent. */
  what: string;
}

export const AGENT_ROUTE_FORMS: readonly AgentRouteForm[] = [
  {
    path: '/v0/city/:cityName/agent/:base',
    params: AgentBaseParams,
    stem: 'agent-by-base',
    streamId: 'stream-agent-output',
    what: 'a city agent',
  },
  {
    path: '/v0/city/:cityName/agent/:dir/:base',
    params: AgentQualifiedParams,
    stem: 'agent-by-dir-by-base',
    streamId: 'stream-agent-output-qualified',
    what: 'a rig agent (`dir/base`)',
  },
];

/** The qualified name the path addresses: `base`, or `dir/base`. Pure. */
export const agentName = (params: AgentPathParams): string =>
  params.dir === undefined ? params.base : `${params.dir}/${params.base}`;
