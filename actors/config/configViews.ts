/**
 * The config family's answers, computed from an effective config: GET /config, /config/defaults,
 * /config/explain, /config/validate and /packs. Pure functions.
 */
import { composeConfig } from '../../machines/config/compose.ts';
import { agentIdentity, strOf, textOf, type Table } from '../../machines/config/layers.ts';
import { renderProblem, type ConfigProblem } from '../../machines/config/problems.ts';
import { isCityLevelProvider, resolveProvider } from '../../machines/config/resolveProvider.ts';
import type {
  AnnotatedAgentResponse,
  ConfigAgentResponse,
  ConfigExplainResponse,
  ConfigResponse,
  ConfigRigResponse,
  ConfigValidateOutputBody,
  ConfigValueSource,
  ProviderSpecJSON,
  WorkspaceResponse,
} from '../../schemas/config.ts';
import { isBuiltinProvider } from './providers.ts';
import { builtinProviderSpecs } from './builtinProviders.ts';
import type { EffectiveConfig } from './effectiveConfig.ts';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(textOf) : []);
const int = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'bigint' ? Number(v) : undefined;
const stringMap = (v: unknown): Record<string, string> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, textOf(x)]))
    : undefined;

/** A provider's flattened spec on the wire (ProviderSpecJSON's fields). */
export function providerSpecJson(spec: Table): ProviderSpecJSON {
  const out: ProviderSpecJSON = {};
  if (strOf(spec.command)) out.command = textOf(spec.command);
  if (Array.isArray(spec.args)) out.args = strings(spec.args);
  if (strOf(spec.acp_command)) out.acp_command = textOf(spec.acp_command);
  if (Array.isArray(spec.acp_args)) out.acp_args = strings(spec.acp_args);
  if (strOf(spec.display_name)) out.display_name = textOf(spec.display_name);
  const env = stringMap(spec.env);
  if (env) out.env = env;
  if (strOf(spec.prompt_flag)) out.prompt_flag = textOf(spec.prompt_flag);
  if (strOf(spec.prompt_mode)) out.prompt_mode = textOf(spec.prompt_mode);
  const delay = int(spec.ready_delay_ms);
  if (delay !== undefined) out.ready_delay_ms = delay;
  return out;
}

/** Upstream's "is a pool": the agent may run more than one session. */
const isPool = (a: Table): boolean =>
  (int(a.max_active_sessions) ?? 1) > 1 ||
  (int(a.min_active_sessions) ?? 0) > 1 ||
  strOf(a.scale_check) !== undefined;

function agentView(a: Table): ConfigAgentResponse {
  const out: ConfigAgentResponse = { name: textOf(a.name), suspended: a.suspended === true };
  if (strOf(a.dir)) out.dir = textOf(a.dir);
  if (isPool(a)) out.is_pool = true;
  if (strOf(a.provider)) out.provider = textOf(a.provider);
  if (strOf(a.scope)) out.scope = textOf(a.scope);
  return out;
}

export function rigView(r: Table): ConfigRigResponse {
  const out: ConfigRigResponse = {
    name: textOf(r.name),
    path: textOf(r.path),
    suspended: r.suspended === true,
  };
  if (strOf(r.prefix)) out.prefix = textOf(r.prefix);
  return out;
}

function workspaceView(ws: Table, raw: Table, cityName: string): WorkspaceResponse {
  const declared = (raw.workspace ?? {}) as Table;
  const out: WorkspaceResponse = { name: strOf(ws.name) ?? cityName, suspended: ws.suspended === true };
  if (strOf(declared.name)) out.declared_name = textOf(declared.name);
  if (strOf(ws.prefix)) out.prefix = textOf(ws.prefix);
  if (strOf(declared.prefix)) out.declared_prefix = textOf(declared.prefix);
  if (strOf(ws.provider)) out.provider = textOf(ws.provider);
  if (strOf(ws.session_template)) out.session_template = textOf(ws.session_template);
  const max = int(ws.max_active_sessions);
  if (max !== undefined) out.max_active_sessions = max;
  return out;
}

const patchCounts = (c: EffectiveConfig) => ({
  agents: c.composed.patches.agent.length,
  providers: c.composed.patches.providers.length,
  rigs: c.composed.patches.rigs.length,
});

/** Every provider's flattened spec, by name. */
function providerSpecs(c: Pick<EffectiveConfig['composed'], 'providers'>): Record<string, ProviderSpecJSON> {
  const out: Record<string, ProviderSpecJSON> = {};
  for (const name of Object.keys(c.providers)) out[name] = providerSpecJson(resolveProvider(c, name) ?? {});
  return out;
}

/** GET /config: the effective config (packs and patches applied). */
export function configView(c: EffectiveConfig, cityName: string): ConfigResponse {
  const counts = patchCounts(c);
  return {
    workspace: workspaceView(c.composed.workspace, c.raw, cityName),
    agents: c.composed.agents.map(agentView),
    rigs: c.composed.rigs.map(rigView),
    providers: providerSpecs(c.composed),
    patches: { agent_count: counts.agents, provider_count: counts.providers, rig_count: counts.rigs },
  };
}

/** GET /config/defaults: what a city with an empty city.toml would have (the builtin layer alone). */
export function defaultsView(cityName: string): ConfigResponse {
  const composed = composeConfig({ builtinProviders: builtinProviderSpecs(), packs: [], city: {}, cityName });
  return {
    workspace: { name: cityName, suspended: false },
    agents: [],
    rigs: [],
    providers: providerSpecs(composed),
    patches: { agent_count: 0, provider_count: 0, rig_count: 0 },
  };
}

/** GET /config/explain: each agent's and provider's origin, patch counts, and (ours) every value's source. */
export function explainView(c: EffectiveConfig): ConfigExplainResponse {
  const inline = new Set(
    (Array.isArray(c.raw.agent) ? (c.raw.agent as Table[]) : []).map((a) => agentIdentity(a)),
  );
  const agents: AnnotatedAgentResponse[] = c.composed.agents.map((a) => ({
    ...agentView(a),
    // An agent of an include fragment is the city's own too.
    origin:
      inline.has(agentIdentity(a)) || c.composed.sources[`agents.${agentIdentity(a)}.name`]?.origin === 'city'
        ? 'inline'
        : 'pack-derived',
  }));
  const providers: ConfigExplainResponse['providers'] = {};
  for (const name of Object.keys(c.composed.providers)) {
    const builtin = isBuiltinProvider(name);
    const city = isCityLevelProvider(c.composed, name);
    providers[name] = {
      ...providerSpecJson(resolveProvider(c.composed, name) ?? {}),
      origin: builtin && city ? 'builtin+city' : builtin ? 'builtin' : 'city',
    };
  }
  const sources: ConfigValueSource[] = Object.entries(c.composed.sources)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, s]) => ({ path, ...s }));
  return { agents, providers, patches: patchCounts(c), sources };
}

/** GET /config/validate from a list of problems. */
export function validateView(problems: ConfigProblem[]): ConfigValidateOutputBody {
  const errors = problems.filter((p) => p.severity === 'error');
  const warnings = problems.filter((p) => p.severity === 'warning');
  return {
    valid: errors.length === 0,
    errors: errors.map(renderProblem),
    warnings: warnings.map(renderProblem),
    problems,
  };
}
