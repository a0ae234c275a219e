import { readFile } from 'node:fs/promises';

import { parse, stringify } from 'smol-toml';
import { originOf } from '../../machines/config/packTree.ts';
import type { AgentConfig, CityConfig, NamedSessionConfig } from '../../schemas/cityToml.ts';
import { cityTomlPath } from '../runtime/cityPaths.ts';

declare module '../runtime/cityServices.ts' {
  interface CityConfigRegistry {
    parsed: CityConfig;
  }
}

export type { AgentConfig, CityConfig, NamedSessionConfig } from '../../schemas/cityToml.ts';

export { cityTomlPath };

/** The `city.toml` a new city is scaffolded with. Pure. */
export function renderCityToml(name: string, cfg: Omit<CityConfig, 'agents'>): string {
  const workspace: Record<string, string> = { name };
  if (cfg.provider) workspace.provider = cfg.provider;
  if (cfg.startCommand) workspace.start_command = cfg.startCommand;
  if (cfg.bootstrapProfile) workspace.bootstrap_profile = cfg.bootstrapProfile;
  return `# Gas City: created by the supervisor (POST /v0/city).\n${stringify({ workspace })}\n`;
}

const isTable = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Reads and parses a city's `city.toml`. Throws when the file is missing or not valid TOML, with a
 * message fit for a `request.failed` event.
 */
export async function readCityConfig(dir: string): Promise<CityConfig> {
  const file = cityTomlPath(dir);
  let doc: Record<string, unknown>;
  try {
    doc = parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`loading ${file}: ${(err as Error).message}`, { cause: err });
  }
  return cityConfigOf(doc);
}

const int = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'bigint' ? Number(v) : undefined;

/**
 * Reads and parses a city's `city.toml` as a document. Throws when the file is missing or not valid TOML,
 * with a message fit for a `request.failed` event.
 */
export async function readCityToml(dir: string): Promise<Record<string, unknown>> {
  const file = cityTomlPath(dir);
  try {
    return parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`loading ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** The config a parsed `city.toml` document holds. Pure. */
export function cityConfigOf(doc: Record<string, unknown>): CityConfig {
  const ws = (doc.workspace ?? {}) as Record<string, unknown>;
  const defaults = (doc.agent_defaults ?? {}) as Record<string, unknown>;
  const agents = (Array.isArray(doc.agent) ? doc.agent : []).map((a): AgentConfig => {
    const t = (a ?? {}) as Record<string, unknown>;
    const agent: AgentConfig = { name: typeof t.name === 'string' ? t.name : '' };
    const set = <K extends keyof AgentConfig>(k: K, v: AgentConfig[K] | undefined) => {
      if (v !== undefined) agent[k] = v;
    };
    set('dir', str(t.dir));
    set('scope', str(t.scope));
    set('provider', str(t.provider));
    set('start_command', str(t.start_command));
    set('session', str(t.session));
    set('suspended', typeof t.suspended === 'boolean' ? t.suspended : undefined);
    set('min_active_sessions', int(t.min_active_sessions));
    set('max_active_sessions', int(t.max_active_sessions));
    set('scale_check', str(t.scale_check));
    set('work_query', str(t.work_query));
    set('description', str(t.description));
    for (const k of [
      'prompt_template',
      'work_dir',
      'nudge',
      'prompt_mode',
      'prompt_flag',
      'overlay_dir',
      'namepool',
      'session_setup_script',
      'wake_mode',
      'idle_timeout',
      'ready_prompt_prefix',
    ] as const)
      set(k, str(t[k]));
    set('ready_delay_ms', int(t.ready_delay_ms));
    for (const k of ['session_setup', 'session_live', 'install_agent_hooks'] as const)
      if (Array.isArray(t[k]))
        set(
          k,
          t[k].filter((d): d is string => typeof d === 'string'),
        );
    if (isTable(t.env))
      set(
        'env',
        Object.fromEntries(
          Object.entries(t.env).flatMap(([k, v]) =>
            typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? [[k, String(v)]] : [],
          ),
        ),
      );
    // Upstream fills every agent without its own from [agent_defaults] (the control dispatcher aside).
    set('default_sling_formula', str(t.default_sling_formula) ?? str(defaults.default_sling_formula));
    set('configDir', originOf(t)?.dir);
    if (Array.isArray(t.inject_fragments))
      set(
        'inject_fragments',
        t.inject_fragments.filter((d): d is string => typeof d === 'string'),
      );
    if (Array.isArray(t.pre_start))
      set(
        'pre_start',
        t.pre_start.filter((d): d is string => typeof d === 'string'),
      );
    if (Array.isArray(t.depends_on))
      set(
        'depends_on',
        t.depends_on.filter((d): d is string => typeof d === 'string'),
      );
    return agent;
  });
  const namedSessions = (Array.isArray(doc.named_session) ? doc.named_session : []).map((n) => {
    const t = (n ?? {}) as Record<string, unknown>;
    // A rig's named session (stamped by its pack) is `<rig>/<name>`, backed by `<rig>/<template>`.
    const dir = str(t.dir);
    const inRig = (n: string) => (dir && n !== '' ? `${dir}/${n}` : n);
    const template = str(t.template) ?? '';
    return {
      name: inRig(str(t.name) ?? template),
      template: inRig(template),
      mode: t.mode === 'always' ? 'always' : 'on_demand',
    } satisfies NamedSessionConfig;
  });
  return {
    ...(str(ws.provider) ? { provider: str(ws.provider)! } : {}),
    ...(str(ws.start_command) ? { startCommand: str(ws.start_command)! } : {}),
    ...(str(ws.bootstrap_profile) ? { bootstrapProfile: str(ws.bootstrap_profile)! } : {}),
    agents,
    namedSessions,
    ...(doc.session && typeof doc.session === 'object' ? { session: sessionTable(doc.session) } : {}),
    ...(doc.session && typeof doc.session === 'object' && isTable((doc.session as { acp?: unknown }).acp)
      ? { sessionAcp: sessionTable((doc.session as { acp: object }).acp) }
      : {}),
    ...(doc.daemon && typeof doc.daemon === 'object' ? { daemon: sessionTable(doc.daemon) } : {}),
    ...(Array.isArray(doc.service) ? { services: doc.service as unknown[] } : {}),
  };
}

function sessionTable(table: object): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(table)) {
    if (typeof v === 'string' || typeof v === 'number') out[k] = v;
    else if (typeof v === 'bigint') out[k] = Number(v);
  }
  return out;
}
