/**
 * What an agent's session starts with, as upstream resolves it: its working directory (`work_dir`, a
 * template over the agent and its rig, created if missing; else the rig's directory, else the city's), its
 * command with upstream's setup variables filled in (`{{.ConfigDir}}`, `{{.CityRoot}}`, `{{.Rig}}`, …), and
 * its role prompt rendered from `prompt_template` with the city packs' fragments, then delivered the way
 * its provider takes prompts (`prompt_mode`). Effects: reads the prompt and fragment files; creates the
 * working directory.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import {
  execTemplate,
  expandOrKeep,
  parseTemplate,
  renderTemplate,
  type TemplateSet,
} from '../../machines/agents/goTemplate.ts';
import type { AgentConfig, CityConfig } from '../../schemas/cityToml.ts';
import { parseDuration } from '../runtime/duration.ts';
import { ValidationError } from '../runtime/errors.ts';
import { copyOverlays, runPreStart } from './startSetup.ts';
import { shellQuote } from './runtime/presets.ts';
import type { SessionTemplate } from './templates.ts';
import { K } from '../../machines/sessions/sessionRecord.ts';

/** Upstream's `[session] setup_timeout` default: each pre_start command's limit. */
const SETUP_TIMEOUT_MS = 10_000;

export interface AgentStart {
  workDir: string;
  command: string;
  /** Session metadata the reconciler delivers at start: `gc.prompt`, `gc.prompt_mode`, `gc.nudge`, … */
  metadata: Record<string, string>;
}

/** The agent a qualified template name means. */
export function findAgent(config: CityConfig, name: string): AgentConfig | undefined {
  return (
    config.agents.find((a) => (a.dir ? `${a.dir}/${a.name}` : a.name) === name) ??
    config.agents.find((a) => !a.dir && a.name === name)
  );
}

const after = (s: string, sep: string) => s.slice(s.lastIndexOf(sep) + 1);

/**
 * The start settings of `instance` (a pool instance or named identity) of `agent`, after the overlays
 * are copied into its working directory and its `pre_start` commands ran there (with `env`, the city's
 * session environment over the supervisor's).
 * @throws ValidationError when `work_dir` does not expand (upstream skips that session) or a `pre_start`
 *   command fails (upstream aborts the start).
 */
export async function agentStart(
  cityDir: string,
  config: CityConfig,
  agent: AgentConfig,
  instance: string,
  template: SessionTemplate,
  now: Date = new Date(),
  env: Readonly<Record<string, string>> = {},
): Promise<AgentStart> {
  const rig = agent.dir ? config.rigs?.find((r) => r.name === agent.dir) : undefined;
  const rigRoot = rig ? resolve(cityDir, rig.path) : '';
  const cityName = config.name ?? basename(cityDir);
  const base = {
    Agent: instance,
    AgentBase: after(instance, '/'),
    Rig: agent.dir ?? '',
    RigRoot: rigRoot,
    CityRoot: cityDir,
    CityName: cityName,
  };
  let workDir = rigRoot || (agent.dir ? resolve(cityDir, agent.dir) : cityDir);
  if (agent.work_dir) {
    let expanded: string;
    try {
      expanded = renderStrict(agent.work_dir, base);
    } catch (err) {
      throw new ValidationError(
        `expand work_dir ${JSON.stringify(agent.work_dir)}: ${(err as Error).message}`,
      );
    }
    workDir = resolve(cityDir, expanded);
  }
  await mkdir(workDir, { recursive: true });
  const setup = { ...base, WorkDir: workDir, ConfigDir: agent.configDir ?? cityDir, Session: '' };
  const command = expandOrKeep(template.command, setup);
  const overlays = [
    ...(config.packDirs ?? []).map((d) => join(d, 'overlay')),
    // A rig-scoped agent's rig packs come after the city's (upstream's effectiveOverlayDirs).
    ...(agent.dir ? (config.rigPackDirs?.[agent.dir] ?? []) : []).map((d) => join(d, 'overlay')),
    ...(agent.overlay_dir ? [resolve(cityDir, agent.overlay_dir)] : []),
  ];
  await copyOverlays(overlays, workDir, [template.provider, ...hookSlots(agent, config)]);
  if (agent.pre_start?.length) {
    const limit = config.session?.setup_timeout;
    await runPreStart(
      agent.pre_start.map((c) => expandOrKeep(c, setup)),
      {
        cwd: workDir,
        env: { ...process.env, ...env, GC_AGENT: instance, GC_DIR: workDir, GC_CITY: cityDir },
        timeoutMs: limit === undefined ? SETUP_TIMEOUT_MS : parseDuration(String(limit)),
      },
    );
  }

  const metadata: Record<string, string> = {};
  const mode = agent.prompt_mode ?? (agent.start_command ? 'none' : (template.preset?.promptMode ?? 'arg'));
  const prompt = agent.prompt_template
    ? await renderPrompt(cityDir, config, agent, {
        CityRoot: cityDir,
        AgentName: instance,
        TemplateName: after(after(instance, '/'), '.'),
        RigName: agent.dir ?? '',
        RigRoot: rigRoot,
        WorkDir: workDir,
        IssuePrefix: rig?.prefix ?? '',
        Branch: '',
        DefaultBranch: 'main',
        WorkQuery: '',
        SlingQuery: '',
      })
    : undefined;
  // Upstream's beacon heads every prompt: the city, the identity and when the controller started it.
  const beacon = `[${cityName}] ${instance} • ${now.toISOString().slice(0, 19)}`;
  metadata['gc.prompt'] = prompt ? `${beacon}\n\n${prompt}` : beacon;
  metadata['gc.prompt_mode'] = mode;
  const flag = agent.prompt_flag ?? template.preset?.promptFlag;
  if (flag) metadata['gc.prompt_flag'] = flag;
  if (agent.nudge) metadata['gc.nudge'] = agent.nudge;
  Object.assign(metadata, lifecycleMetadata(cityDir, agent, setup, { ...process.env, ...env }));
  if ((metadata[K.setup] || metadata[K.live]) && config.session?.setup_timeout !== undefined) {
    try {
      metadata[K.setupTimeoutMs] = String(parseDuration(String(config.session.setup_timeout)));
    } catch {
      // A bad duration: validate names it; the commands keep upstream's default.
    }
  }
  return { workDir, command, metadata };
}

/**
 * The agent's lifecycle keys as session metadata the reconciler applies: `idle_timeout` (a bad duration is
 * left out: validate warns about it), `wake_mode = "fresh"`, `env` with `$VAR`/`${VAR}` expanded from the
 * supervisor's environment, and the commands run once the session is up (`session_setup`, then
 * `session_setup_script`) and after its nudge (`session_live`), with their setup variables.
 */
function lifecycleMetadata(
  cityDir: string,
  agent: AgentConfig,
  setup: Record<string, string>,
  controllerEnv: NodeJS.ProcessEnv,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (agent.idle_timeout) {
    try {
      const ms = parseDuration(agent.idle_timeout);
      if (ms > 0) out[K.idleTimeoutMs] = String(ms);
    } catch {
      // Upstream warns about a bad duration and runs without it.
    }
  }
  if (agent.wake_mode === 'fresh') out[K.wakeMode] = 'fresh';
  if (agent.env && Object.keys(agent.env).length > 0)
    out[K.env] = JSON.stringify(
      Object.fromEntries(Object.entries(agent.env).map(([k, v]) => [k, expandVars(v, controllerEnv)])),
    );
  const script = agent.session_setup_script
    ? [
        isAbsolute(agent.session_setup_script)
          ? agent.session_setup_script
          : join(cityDir, agent.session_setup_script),
      ]
    : [];
  const setupCommands = [...(agent.session_setup ?? []), ...script.map((f) => `sh -c ${shellQuote(f)}`)];
  if (setupCommands.length) out[K.setup] = JSON.stringify(setupCommands);
  if (agent.session_live?.length) out[K.live] = JSON.stringify(agent.session_live);
  if (setupCommands.length || agent.session_live?.length) out[K.setupVars] = JSON.stringify(setup);
  return out;
}

/** `$VAR` and `${VAR}` from `env` (unset: empty), as Go's os.ExpandEnv does for upstream's agent env. */
export const expandVars = (value: string, env: NodeJS.ProcessEnv): string =>
  value.replace(
    /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (_, a?: string, b?: string) => env[a ?? b ?? ''] ?? '',
  );

/** Upstream's providers with a hook mechanism (`install_agent_hooks` values). */
const HOOK_PROVIDERS = ['claude', 'codex', 'gemini', 'opencode', 'copilot', 'cursor', 'pi', 'omp'];
/** Providers upstream knows that have none. */
const NO_HOOKS = new Set(['amp', 'auggie']);

/**
 * The agent's `install_agent_hooks` (else `[workspace]`'s: replaced, not merged): the providers whose
 * `per-provider/<p>/` overlay files it gets after its own provider's.
 * @throws ValidationError naming each value upstream refuses (upstream aborts the start).
 */
function hookSlots(agent: AgentConfig, config: CityConfig): string[] {
  const slots = agent.install_agent_hooks ?? config.installAgentHooks ?? [];
  const bad = slots.filter((s) => !HOOK_PROVIDERS.includes(s));
  if (bad.length > 0)
    throw new ValidationError(
      `unsupported install_agent_hooks: ${bad.map((b) => `${b} (${NO_HOOKS.has(b) ? 'no hook mechanism' : 'unknown'})`).join(', ')}; supported: ${HOOK_PROVIDERS.join(', ')}`,
    );
  return slots;
}

/** `work_dir` is strict upstream: a field it does not know is an error, not an empty string. */
function renderStrict(src: string, data: Record<string, string>): string {
  for (const m of src.matchAll(/\{\{-?\s*\.([A-Za-z0-9_]+)/g))
    if (!(m[1]! in data)) throw new Error(`map has no entry for key "${m[1]}"`);
  return renderTemplate(src, data);
}

const FUNCS = {
  cmd: () => 'gc',
  basename: (s: string) => after(s, '/'),
  // The deterministic session name of an identity (upstream's sanitisation).
  session: (s: string) => s.replaceAll('/', '--').replaceAll('.', '__'),
};

/** The `*.md.tmpl` then `*.template.md` files of a directory, each sorted. */
async function fragmentFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const pick = (suffix: string) =>
    names
      .filter((n) => n.endsWith(suffix))
      .sort()
      .map((n) => join(dir, n));
  return [...pick('.md.tmpl'), ...pick('.template.md')];
}

/**
 * The prompt of an agent: a `.template.md` (or `.md.tmpl`) file rendered with the city packs'
 * `template-fragments/` (and `shared/`, `template-fragments/` beside the prompt) loaded first, then the
 * global and the agent's fragments appended; any other file verbatim. A template that does not render is
 * used as written (upstream logs a warning). Undefined when the file cannot be read.
 */
async function renderPrompt(
  cityDir: string,
  config: CityConfig,
  agent: AgentConfig,
  data: Record<string, string>,
): Promise<string | undefined> {
  const file = isAbsolute(agent.prompt_template!)
    ? agent.prompt_template!
    : join(cityDir, agent.prompt_template!);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  if (!file.endsWith('.template.md') && !file.endsWith('.md.tmpl')) return text;
  const set: TemplateSet = new Map();
  const dirs = [
    ...(config.packDirs ?? []).flatMap((d) => [join(d, 'prompts', 'shared'), join(d, 'template-fragments')]),
    join(dirname(file), 'shared'),
    join(dirname(file), 'template-fragments'),
  ];
  for (const dir of dirs)
    for (const f of await fragmentFiles(dir)) {
      try {
        parseTemplate(await readFile(f, 'utf8'), set);
      } catch {
        // Upstream logs and skips a fragment that does not parse.
      }
    }
  let out: string;
  try {
    out = execTemplate(parseTemplate(text, set), set, data, FUNCS);
  } catch {
    return text;
  }
  for (const name of [...(config.globalFragments ?? []), ...(agent.inject_fragments ?? [])]) {
    const def = set.get(name);
    if (!def) continue;
    try {
      out += `\n\n${execTemplate(def, set, data, FUNCS)}`;
    } catch {
      // An appended fragment that does not render is left out, as upstream does.
    }
  }
  return out;
}
