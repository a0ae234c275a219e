import type { ComposedConfig } from './compose.ts';
import {
  agentIdentity,
  CITY_FILE,
  strOf,
  tableOf,
  tablesOf,
  textOf,
  type PackLayer,
  type Source,
  type Table,
} from './layers.ts';
import { didYouMean, type ConfigProblem } from './problems.ts';
import { agentSessionProblem, sessionAcpProblems } from './sessionAcp.ts';
import { resolveProvider } from './resolveProvider.ts';
import { sessionProviderProblem } from './sessionProvider.ts';
import { unappliedProblems } from './unapplied.ts';

/** city.toml's top-level keys (upstream's); any other is a warning. */
export const KNOWN_TOP_LEVEL = [
  'include',
  'workspace',
  'providers',
  'packs',
  'imports',
  'agent',
  'named_session',
  'rigs',
  'patches',
  'beads',
  'session',
  'mail',
  'events',
  'dolt',
  'formulas',
  'daemon',
  'orders',
  'api',
  'chat_sessions',
  'session_sleep',
  'convergence',
  'service',
  'agent_defaults',
  'agents',
];

/** Names of agents, rigs, providers and services. */
export const CONFIG_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const SERVICE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
const PROMPT_MODES = ['arg', 'flag', 'none'];
const SERVICE_KINDS = ['workflow', 'proxy_process'];

const isCount = (v: unknown): boolean =>
  (typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'bigint' && v >= 0n);

/**
 * Every problem of a composed configuration, each naming its file and field: errors (the config cannot
 * be used as it is: unknown providers, duplicate or unnamed agents and rigs, a dependency cycle, a patch
 * without a target, a city provider without a command, …) and warnings (unknown keys, with a "did you
 * mean"). `packErrors` are the problems found while reading packs. This is a pure function.
 */
export function validateConfig(
  c: ComposedConfig,
  city: Table,
  packErrors: ConfigProblem[] = [],
  packs: PackLayer[] = [],
): ConfigProblem[] {
  const out: ConfigProblem[] = [...packErrors];
  const fileOf = (s: Source | undefined): string => s?.file ?? CITY_FILE;
  const error = (file: string, field: string, message: string) =>
    out.push({ severity: 'error', file, field, message });
  const warn = (file: string, field: string, message: string) =>
    out.push({ severity: 'warning', file, field, message });

  for (const key of Object.keys(city)) {
    if (!KNOWN_TOP_LEVEL.includes(key))
      warn(CITY_FILE, key, `unknown field "${key}"${didYouMean(key, KNOWN_TOP_LEVEL)}`);
  }

  const providerNames = new Set(Object.keys(c.providers));
  for (const [name, spec] of Object.entries(c.providers)) {
    const file = fileOf(c.sources[`providers.${name}.command`] ?? c.sources[`providers.${name}.base`]);
    const field = `providers.${name}`;
    if (!CONFIG_NAME.test(name)) error(file, field, 'invalid provider name');
    const base = strOf(spec.base);
    if (spec.base !== undefined && (base === undefined || !providerNames.has(base) || base === name))
      error(file, `${field}.base`, `unknown base provider ${JSON.stringify(spec.base)}`);
    if (!strOf(spec.command) && base === undefined) error(file, `${field}.command`, 'command is required');
    if (spec.prompt_mode !== undefined && !PROMPT_MODES.includes(textOf(spec.prompt_mode)))
      error(file, `${field}.prompt_mode`, `expected one of ${PROMPT_MODES.join(', ')}`);
    if (spec.ready_delay_ms !== undefined && !isCount(spec.ready_delay_ms))
      error(file, `${field}.ready_delay_ms`, 'expected a non-negative integer');
    for (const list of ['args', 'args_append', 'acp_args'])
      if (
        spec[list] !== undefined &&
        !(Array.isArray(spec[list]) && spec[list].every((a) => typeof a === 'string'))
      )
        error(file, `${field}.${list}`, 'expected an array of strings');
  }

  const defaultProvider = strOf(c.workspace.provider);
  if (c.workspace.provider !== undefined && (!defaultProvider || !providerNames.has(defaultProvider)))
    error(CITY_FILE, 'workspace.provider', `unknown provider ${JSON.stringify(c.workspace.provider)}`);

  // An agent is named by its place in the file that defines it (the last table of its identity there).
  const docs = new Map<string, Table>([
    [CITY_FILE, city],
    ...packs.map((p): [string, Table] => [p.file, p.doc]),
  ]);
  const placeIn = (file: string, id: string, fallback: number): number => {
    const list = tablesOf(docs.get(file)?.agent);
    for (let j = list.length - 1; j >= 0; j--) if (agentIdentity(list[j]!) === id) return j;
    return fallback;
  };
  for (const [file, doc] of docs) {
    const seen = new Set<string>();
    tablesOf(doc.agent).forEach((a, j) => {
      const id = agentIdentity(a);
      if (strOf(a.name) && seen.has(id))
        error(file, `agent[${j}] (${id}).name`, `agent ${id} is defined twice`);
      seen.add(id);
    });
  }
  const cityAcp = tableOf(city.session).provider === 'acp';
  c.agents.forEach((a, i) => {
    const id = agentIdentity(a);
    const source = c.sources[`agents.${id}.name`];
    const file = fileOf(source);
    const field = `agent[${placeIn(file, id, i)}]${strOf(a.name) ? ` (${id})` : ''}`;
    if (!strOf(a.name)) error(file, `${field}.name`, 'name is required');
    else if (!CONFIG_NAME.test(textOf(a.name)))
      error(file, `${field}.name`, 'expected letters, digits, ".", "_" or "-"');
    if (a.dir !== undefined && !CONFIG_NAME.test(textOf(a.dir)))
      error(file, `${field}.dir`, 'expected a rig name');
    if (a.provider !== undefined && !providerNames.has(textOf(a.provider)))
      error(file, `${field}.provider`, `unknown provider ${JSON.stringify(a.provider)}`);
    for (const k of ['min_active_sessions', 'max_active_sessions'])
      if (a[k] !== undefined && !isCount(a[k]))
        error(file, `${field}.${k}`, 'expected a non-negative integer');
    if (
      isCount(a.min_active_sessions) &&
      isCount(a.max_active_sessions) &&
      Number(a.min_active_sessions) > Number(a.max_active_sessions)
    )
      error(file, `${field}.min_active_sessions`, 'greater than max_active_sessions');
    if (a.suspended !== undefined && typeof a.suspended !== 'boolean')
      error(file, `${field}.suspended`, 'expected a boolean');
    const providerName = strOf(a.provider) ?? defaultProvider;
    // `[session] provider = "acp"` asks every agent without its own `session` key for ACP.
    const byCity = a.session === undefined && cityAcp;
    const transport = agentSessionProblem(
      byCity ? { ...a, session: 'acp' } : a,
      providerName ? { name: providerName, spec: resolveProvider(c, providerName) } : undefined,
      c.providers,
    );
    if (transport && byCity) error(CITY_FILE, 'session.provider', `agent ${id}: ${transport}`);
    else if (transport)
      error(fileOf(c.sources[`agents.${id}.session`] ?? source), `${field}.session`, transport);
  });
  dependencyProblems(c.agents).forEach((p) => out.push(p));

  const rigNames = new Set<string>();
  c.rigs.forEach((r, i) => {
    const field = `rigs[${i}]`;
    if (!strOf(r.name)) error(CITY_FILE, `${field}.name`, 'name is required');
    else if (!CONFIG_NAME.test(textOf(r.name)))
      error(CITY_FILE, `${field}.name`, 'expected letters, digits, ".", "_" or "-"');
    else if (rigNames.has(textOf(r.name)))
      error(CITY_FILE, `${field}.name`, `rig ${textOf(r.name)} is defined twice`);
    else rigNames.add(textOf(r.name));
    if (!strOf(r.path)) error(CITY_FILE, `${field}.path`, 'path is required');
    if (r.suspended !== undefined && typeof r.suspended !== 'boolean')
      error(CITY_FILE, `${field}.suspended`, 'expected a boolean');
  });

  const serviceNames = new Set<string>();
  c.services.forEach((s, i) => {
    const file = fileOf(c.sources[`services.${textOf(s.name)}.name`]);
    const field = `service[${i}]`;
    if (!SERVICE_NAME.test(textOf(s.name)))
      error(file, `${field}.name`, 'expected [a-zA-Z0-9][a-zA-Z0-9_-]*');
    else if (serviceNames.has(textOf(s.name)))
      error(file, `${field}.name`, `service ${textOf(s.name)} is defined twice`);
    else serviceNames.add(textOf(s.name));
    if (s.kind !== undefined && !SERVICE_KINDS.includes(textOf(s.kind)))
      error(file, `${field}.kind`, `expected one of ${SERVICE_KINDS.join(', ')}`);
  });

  const runtime = sessionProviderProblem(city);
  if (runtime) out.push(runtime);
  out.push(...sessionAcpProblems(city, c.sources));
  out.push(...unappliedProblems(c));

  for (const { field, target } of c.unmatchedPatches) error(CITY_FILE, field, `${target} is not defined`);
  tablesOf(tableOf(city.patches).agent).forEach((p, i) => {
    if (!strOf(p.name)) error(CITY_FILE, `patches.agent[${i}].name`, 'name is required');
  });
  return out;
}

/** `depends_on` naming no agent, and dependency cycles. */
function dependencyProblems(agents: Table[]): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const ids = new Set(agents.map(agentIdentity));
  const deps = new Map<string, string[]>();
  agents.forEach((a, i) => {
    const id = agentIdentity(a);
    const list = Array.isArray(a.depends_on) ? a.depends_on.map(String) : [];
    deps.set(id, list);
    for (const d of list)
      if (!ids.has(d))
        out.push({
          severity: 'error',
          file: CITY_FILE,
          field: `agent[${i}] (${id}).depends_on`,
          message: `unknown agent "${d}"`,
        });
  });
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, path: string[]): void => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(id)), id].join(' → ');
      out.push({
        severity: 'error',
        file: CITY_FILE,
        field: `agent (${id}).depends_on`,
        message: `dependency cycle ${cycle}`,
      });
      return;
    }
    state.set(id, 'visiting');
    for (const d of deps.get(id) ?? []) if (ids.has(d)) visit(d, [...path, id]);
    state.set(id, 'done');
  };
  for (const id of ids) visit(id, []);
  return out;
}
