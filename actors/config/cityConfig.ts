import { readFile } from 'node:fs/promises';

import { parse, stringify } from 'smol-toml';
import { originOf } from '../../machines/config/packTree.ts';
import type { ProviderPreset } from '../sessions/runtime/presets.ts';
import { cityTomlPath } from '../runtime/cityPaths.ts';

declare module '../runtime/cityServices.ts' {
  interface CityConfigRegistry {
    parsed: CityConfig;
  }
}

/** One `[[agent]]` table: a template of sessions (upstream's keys). */
export interface AgentConfig {
  name: string;
  /** The rig (working directory) of a rig-scoped agent: its qualified name is `dir/name`. */
  dir?: string;
  scope?: string;
  provider?: string;
  start_command?: string;
  /** `acp`: its sessions speak the Agent Client Protocol (its provider must declare `supports_acp`). */
  session?: string;
  suspended?: boolean;
  /** Pool bounds: sessions kept at least / at most (absent max: one, unless min asks for more). */
  min_active_sessions?: number;
  max_active_sessions?: number;
  /** A shell command printing how many sessions the pool should run (clamped to the bounds). */
  scale_check?: string;
  /** Templates whose sessions must be running before this one's start. */
  depends_on?: string[];
  description?: string;
  /** The role prompt file (relative to the city, or absolute): rendered and delivered at start. */
  prompt_template?: string;
  /** The session's working directory (a template: `{{.Rig}}`, `{{.AgentBase}}`, …; relative to the city). */
  work_dir?: string;
  /** Typed into the session after it starts. */
  nudge?: string;
  prompt_mode?: string;
  prompt_flag?: string;
  /** Fragment names appended to the prompt. */
  inject_fragments?: string[];
  /** `{{.ConfigDir}}`: the directory of the pack that defined the agent (absolute); the city's otherwise. */
  configDir?: string;
}

/** One `[[named_session]]` table: a public identity backed by a template. */
export interface NamedSessionConfig {
  name: string;
  template: string;
  /** `always`: kept running; `on_demand`: created when a message names it. */
  mode: 'always' | 'on_demand';
}

/** What the supervisor reads from a city's `city.toml` (`[workspace]`, `[[agent]]`, `[[named_session]]`). */
export interface CityConfig {
  provider?: string;
  startCommand?: string;
  bootstrapProfile?: string;
  agents: AgentConfig[];
  namedSessions?: NamedSessionConfig[];
  /**
   * `[session]`: the session lifecycle's thresholds for this city, as durations (`startup_timeout = "60s"`,
   * `idle_timeout = "30m"`, …) or counts (`max_wake_attempts`, `max_wakes_per_tick`); see SessionThresholds.
   */
  session?: Record<string, string | number>;
  /** `[session.acp]` as written (`handshake_timeout`, `nudge_busy_timeout`, `output_buffer_lines`). */
  sessionAcp?: Record<string, string | number>;
  /** `[daemon]`'s scalar keys as written (`shutdown_timeout = "5s"`: how long a city's stop waits). */
  daemon?: Record<string, string | number>;
  /** The `[[service]]` tables as written (workspace services check them: machines/workspaceServices/). */
  services?: unknown[];
  /**
   * The session presets of the providers the city defines or overrides (`[providers.<name>]`, packs and
   * patches included); the builtin presets serve every other name.
   */
  providers?: Record<string, ProviderPreset>;
  /** The city's name (`[workspace] name`, else its directory's). */
  name?: string;
  /** `[[rigs]]`: name, path as written (relative to the city, or absolute) and bead prefix. */
  rigs?: Array<{ name: string; path: string; prefix?: string }>;
  /** `[workspace] global_fragments`: fragment names appended to every prompt. */
  globalFragments?: string[];
  /** The city's pack directories (absolute), included before includer: where prompt fragments are found. */
  packDirs?: string[];
}

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
    set('description', str(t.description));
    for (const k of ['prompt_template', 'work_dir', 'nudge', 'prompt_mode', 'prompt_flag'] as const)
      set(k, str(t[k]));
    set('configDir', originOf(t)?.dir);
    if (Array.isArray(t.inject_fragments))
      set(
        'inject_fragments',
        t.inject_fragments.filter((d): d is string => typeof d === 'string'),
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
