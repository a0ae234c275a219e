/**
 * A city's effective configuration, read from disk: builtin defaults, its packs, its `city.toml`, then the
 * patches of city.toml. This is what the sessions and agents run from, what GET /config shows, and what
 * the workspace services read (`effectiveConfig(city).composed.services`).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { parse } from 'smol-toml';
import { composeConfig, type ComposedConfig } from '../../machines/config/compose.ts';
import { mergeFragments } from '../../machines/config/fragments.ts';
import { strOf, type Table } from '../../machines/config/layers.ts';
import type { ConfigProblem } from '../../machines/config/problems.ts';
import { isCityLevelProvider, resolveProvider } from '../../machines/config/resolveProvider.ts';
import { validateConfig } from '../../machines/config/validateConfig.ts';
import type { AgentConfig } from '../../schemas/cityToml.ts';
import { cityConfigOf, cityTomlPath, type CityConfig } from './cityConfig.ts';
import { ValidationError } from '../runtime/errors.ts';
import { builtinPresets, shellQuote, type ProviderPreset } from '../sessions/index.ts';
import { builtinProviderSpecs } from './builtinProviders.ts';
import { readFragments } from './fragments.ts';
import { readPacks, readRigPacks, type PackInfo } from './packs.ts';
import type { PackNode } from '../../machines/config/packTree.ts';
import { tomlProblem } from './tomlProblem.ts';

export { tomlProblem } from './tomlProblem.ts';

export interface EffectiveConfig {
  /** The composed tables and where each value came from. */
  composed: ComposedConfig;
  /** The config as the sessions and agents read it. */
  city: CityConfig;
  /** Errors and warnings, each naming its file and field. */
  problems: ConfigProblem[];
  packs: PackInfo[];
  /** city.toml as parsed (no pack, no patch applied): what the one writer edits. */
  raw: Table;
  /** sha256 (hex) of city.toml's text. */
  sha256: string;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Parses city.toml's text. @throws ValidationError naming the file and line when it is not valid TOML. */
export function parseCityToml(text: string): Table {
  try {
    return parse(text);
  } catch (err) {
    const p = tomlProblem(err);
    throw new ValidationError(`${p.file}: ${p.field}: ${p.message}`, 'invalid_config', {
      cause: err,
      errors: [{ location: `${p.file}:${p.field}`, message: p.message }],
    });
  }
}

/** The session presets of city-level (or overridden) providers, from their flattened specs. Pure. */
function cityPresets(c: ComposedConfig): Record<string, ProviderPreset> {
  const builtins = builtinPresets();
  const out: Record<string, ProviderPreset> = {};
  for (const name of Object.keys(c.providers)) {
    if (!isCityLevelProvider(c, name)) continue;
    const spec = resolveProvider(c, name);
    const command = strOf(spec?.command);
    if (!spec || !command) continue;
    const base = builtins[strOf(spec.base) ?? name];
    const args = Array.isArray(spec.args) ? spec.args.map(String) : [];
    const preset: ProviderPreset = {
      ...(base ?? {}),
      name,
      command: [command, ...args].map(shellQuote).join(' '),
    };
    if (spec.prompt_mode !== undefined) preset.promptMode = spec.prompt_mode as ProviderPreset['promptMode'];
    if (strOf(spec.prompt_flag)) preset.promptFlag = String(spec.prompt_flag);
    if (typeof spec.ready_delay_ms === 'number') preset.readyDelayMs = spec.ready_delay_ms;
    // ACP: the provider's own `supports_acp` wins over its builtin's; `acp_command`/`acp_args` (upstream's
    // provider keys) name the ACP form when it is not the command itself.
    if (typeof spec.supports_acp === 'boolean') preset.supportsAcp = spec.supports_acp;
    const acpArgs = Array.isArray(spec.acp_args) ? spec.acp_args.map(String) : undefined;
    if (strOf(spec.acp_command) || acpArgs)
      preset.acpCommand = [
        strOf(spec.acp_command) ?? command,
        ...(acpArgs ?? (strOf(spec.acp_command) ? [] : args)),
      ]
        .map(shellQuote)
        .join(' ');
    out[name] = preset;
  }
  return out;
}

/** Each problem once: a pack the city and its rigs both reach is read (and reported) by each. */
function distinct(problems: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.severity}\0${p.file}\0${p.field}\0${p.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/**
 * The effective config of city.toml's `text` in `dir` (packs read from disk). Effects: reads pack files.
 * @throws ValidationError when `text` is not valid TOML.
 */
export async function effectiveConfigOf(
  dir: string,
  text: string,
  cityName = basename(dir),
): Promise<EffectiveConfig> {
  const raw = parseCityToml(text);
  const { fragments, problems: fragmentProblems } = await readFragments(dir, raw);
  const { doc: root, problems: mergeProblems } = mergeFragments(raw, fragments);
  // The packs the city and its rigs both reach are read once.
  const cache = new Map<string, PackNode>();
  const { layers, problems: packProblems, packs } = await readPacks(dir, root, cache);
  const rigPacks = await readRigPacks(dir, root, cache);
  const composed = composeConfig({
    builtinProviders: builtinProviderSpecs(),
    packs: layers,
    city: root,
    fragments,
    rigPacks: rigPacks.layers,
    cityName,
  });
  const city = cityConfigOf({
    workspace: composed.workspace,
    agent: composed.agents,
    named_session: composed.namedSessions,
    ...(composed.rest.session ? { session: composed.rest.session } : {}),
    ...(composed.rest.daemon ? { daemon: composed.rest.daemon } : {}),
    ...(composed.rest.agent_defaults ? { agent_defaults: composed.rest.agent_defaults } : {}),
  });
  await loadNamepools(dir, city.agents);
  city.name = strOf(composed.workspace.name) ?? cityName;
  city.rigs = composed.rigs.flatMap((r) =>
    strOf(r.name) && strOf(r.path)
      ? [
          {
            name: String(r.name),
            path: String(r.path),
            ...(strOf(r.prefix) ? { prefix: String(r.prefix) } : {}),
          },
        ]
      : [],
  );
  const globals = composed.workspace.global_fragments;
  if (Array.isArray(globals))
    city.globalFragments = globals.filter((f): f is string => typeof f === 'string');
  const slots = composed.workspace.install_agent_hooks;
  if (Array.isArray(slots)) city.installAgentHooks = slots.filter((f): f is string => typeof f === 'string');
  city.packDirs = [...new Set(layers.flatMap((l) => (l.dir ? [l.dir] : [])))];
  const rigPackDirs: Record<string, string[]> = {};
  for (const l of rigPacks.layers)
    if (l.dir && !(rigPackDirs[l.rig] ??= []).includes(l.dir)) rigPackDirs[l.rig]!.push(l.dir);
  if (Object.keys(rigPackDirs).length > 0) city.rigPackDirs = rigPackDirs;
  const presets = cityPresets(composed);
  if (Object.keys(presets).length > 0) city.providers = presets;
  return {
    composed,
    city,
    problems: distinct(
      validateConfig(
        composed,
        root,
        [...fragmentProblems, ...mergeProblems, ...packProblems, ...rigPacks.problems],
        layers,
      ),
    ),
    packs,
    raw,
    sha256: sha256(text),
  };
}

/**
 * Reads a city's effective configuration from its directory.
 * Effects: reads city.toml and the pack files. @throws Error when city.toml cannot be read;
 * ValidationError when it is not valid TOML.
 */
export async function effectiveConfig(city: { path: string; name?: string }): Promise<EffectiveConfig> {
  return effectiveConfigOf(city.path, await readFile(cityTomlPath(city.path), 'utf8'), city.name);
}

/**
 * Reads each agent's `namepool` file into `namepoolNames`, as upstream's `loadNamepools`: one name a line,
 * trimmed, blank lines and `#` comments left out; a file that cannot be read leaves the numbered names
 * (upstream's silent fallback). Effects: reads the files.
 */
async function loadNamepools(dir: string, agents: AgentConfig[]): Promise<void> {
  for (const agent of agents) {
    if (!agent.namepool) continue;
    const text = await readFile(resolve(dir, agent.namepool), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const names = text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    if (names.length > 0) agent.namepoolNames = names;
  }
}
