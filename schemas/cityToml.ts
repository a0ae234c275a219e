import { Type, type Static } from 'typebox';

/**
 * What the supervisor reads of a city's `city.toml` (with its packs composed): the one source of the types
 * the config reader produces and the agents, sessions and config families consume. The reader
 * (actors/config/cityConfig.ts) coerces a parsed TOML document into these shapes; a test checks every
 * upstream example city's result against them. Not wire shapes: none of these is in the OpenAPI document.
 */

const str = (description?: string) => Type.Optional(Type.String(description ? { description } : {}));
const strings = (description: string) => Type.Optional(Type.Array(Type.String(), { description }));
const count = (description: string) => Type.Optional(Type.Integer({ description }));

/** How a CLI preset is started, becomes ready, names and resumes a conversation (builtin or `[providers.*]`). */
export const ProviderPresetSchema = Type.Object({
  name: Type.String(),
  command: Type.String({ description: 'The shell command that starts the CLI (arguments already quoted).' }),
  promptMode: Type.Optional(
    Type.Union([Type.Literal('arg'), Type.Literal('flag'), Type.Literal('none')], {
      description:
        'How the role prompt reaches the CLI: a positional argument, a flag, or typed in after start.',
    }),
  ),
  promptFlag: str(),
  readyPromptPrefix: str('Start counts as done once a rendered line starts with this.'),
  readyDelayMs: count('Wait this long after start (alone, or as well as the prompt).'),
  processNames: strings('The process names that mean the agent (not just its shell) is alive.'),
  sessionIdFlag: str(
    '"Generate and pass": a conversation id minted before the first start goes with this flag.',
  ),
  resumeFlag: str('Resumes the conversation with the given id.'),
  resumeStyle: Type.Optional(Type.Union([Type.Literal('flag'), Type.Literal('subcommand')])),
  emitsPermissionWarning: Type.Optional(
    Type.Boolean({ description: 'A bypass-permissions dialog at start.' }),
  ),
  supportsAcp: Type.Optional(Type.Boolean()),
  acpCommand: str('The command that speaks ACP on stdio, where it is not `command` itself (an adapter).'),
  supportsHooks: Type.Optional(Type.Boolean()),
  settingsFlag: str(
    "The flag that points the CLI at gc's hook settings file (`<city>/.gc/settings.json`), on every start.",
  ),
  instructionsFile: str('The instructions file the CLI reads in its working directory.'),
  printArgs: strings('One-shot ("print") mode arguments.'),
});
export type ProviderPreset = Static<typeof ProviderPresetSchema>;

/** One `[[agent]]` table (or `agents/<name>/agent.toml`): a template of sessions, with upstream's keys. */
export const AgentConfigSchema = Type.Object({
  name: Type.String(),
  dir: str('The rig (working directory) of a rig-scoped agent: its qualified name is `dir/name`.'),
  scope: str(),
  provider: str(),
  start_command: str(),
  session: str(
    '`acp`: its sessions speak the Agent Client Protocol (its provider must declare `supports_acp`).',
  ),
  suspended: Type.Optional(Type.Boolean()),
  min_active_sessions: count('Pool bound: sessions kept at least.'),
  max_active_sessions: count('Pool bound: sessions kept at most (absent: one, unless min asks for more).'),
  scale_check: str('A shell command printing how many sessions the pool should run (clamped to the bounds).'),
  work_query: str(
    "A shell command printing the agent's work (`gc hook` runs it in place of the built-in query).",
  ),
  depends_on: strings("Templates whose sessions must be running before this one's start."),
  description: str(),
  prompt_template: str(
    'The role prompt file (relative to the city, or absolute): rendered and delivered at start.',
  ),
  work_dir: str(
    "The session's working directory (a template: `{{.Rig}}`, `{{.AgentBase}}`, …; relative to the city).",
  ),
  nudge: str('Typed into the session after it starts.'),
  prompt_mode: str(),
  prompt_flag: str(),
  inject_fragments: strings('Fragment names appended to the prompt.'),
  pre_start: strings(
    'Shell commands run in the working directory before the session is created (templates).',
  ),
  overlay_dir: str('A directory copied into the working directory at each start (relative to the city).'),
  session_setup: strings('Shell commands run in the working directory once the session is up (non-fatal).'),
  session_setup_script: str('A script run after `session_setup` (relative to the city, or absolute).'),
  session_live: strings('Idempotent commands run after the nudge, and again on a change (no restart).'),
  ready_prompt_prefix: str("Start counts as done once a line starts with this (over the provider's)."),
  ready_delay_ms: count("Wait this long after start (over the provider's)."),
  install_agent_hooks: strings(
    "Providers whose hook files its overlays' per-provider/<p>/ bring (replaces [workspace]'s).",
  ),
  wake_mode: str('`fresh`: every wake begins a new conversation; `resume` (default): it resumes.'),
  idle_timeout: str('Stop a running session after this long without activity (over `[session]`’s).'),
  env: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description: "Added to the session's environment (`$VAR` expanded from the supervisor's).",
    }),
  ),
  default_sling_formula: str('The formula a bead slung here is attached to (else `[agent_defaults]`’s).'),
  namepool: str('A file of names for the pool instances, one a line (relative to the city, or absolute).'),
  namepoolNames: strings(
    'The names read from `namepool` (blank lines and `#` comments left out): pool slot n is the n-th.',
  ),
  configDir: str(
    '`{{.ConfigDir}}`: the directory of the pack that defined the agent (absolute); the city’s otherwise.',
  ),
});
export type AgentConfig = Static<typeof AgentConfigSchema>;

/** One `[[named_session]]` table: a public identity backed by a template. */
export const NamedSessionConfigSchema = Type.Object({
  name: Type.String(),
  template: Type.String(),
  mode: Type.Union([Type.Literal('always'), Type.Literal('on_demand')], {
    description: '`always`: kept running; `on_demand`: created when a message names it.',
  }),
});
export type NamedSessionConfig = Static<typeof NamedSessionConfigSchema>;

/** A table's scalar keys as written (durations as strings, counts as numbers). */
const scalars = (description: string) =>
  Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), { description }));

/** What the supervisor reads from a city's `city.toml`: `[workspace]`, `[[agent]]`, `[[named_session]]`, …. */
export const CityConfigSchema = Type.Object({
  provider: str(),
  startCommand: str(),
  bootstrapProfile: str(),
  agents: Type.Array(AgentConfigSchema),
  namedSessions: Type.Optional(Type.Array(NamedSessionConfigSchema)),
  session: scalars(
    '`[session]`: the session lifecycle\'s thresholds (`startup_timeout = "60s"`, counts, …).',
  ),
  sessionAcp: scalars(
    '`[session.acp]` as written (`handshake_timeout`, `nudge_busy_timeout`, `output_buffer_lines`).',
  ),
  daemon: scalars('`[daemon]` (`shutdown_timeout = "5s"`: how long a city\'s stop waits).'),
  services: Type.Optional(
    Type.Array(Type.Unknown(), {
      description: 'The `[[service]]` tables as written (machines/workspaceServices/).',
    }),
  ),
  providers: Type.Optional(
    Type.Record(Type.String(), ProviderPresetSchema, {
      description:
        'The presets of the providers the city defines or overrides; the builtin ones serve the rest.',
    }),
  ),
  name: str("The city's name (`[workspace] name`, else its directory's)."),
  rigs: Type.Optional(
    Type.Array(
      Type.Object({ name: Type.String(), path: Type.String(), prefix: Type.Optional(Type.String()) }),
      { description: '`[[rigs]]`: name, path as written (relative to the city, or absolute), bead prefix.' },
    ),
  ),
  globalFragments: strings('`[workspace] global_fragments`: fragment names appended to every prompt.'),
  installAgentHooks: strings(
    '`[workspace] install_agent_hooks`: the hook slots of agents without their own.',
  ),
  packDirs: strings(
    "The city's pack directories (absolute), included before includer: where fragments are found.",
  ),
  rigPackDirs: Type.Optional(
    Type.Record(Type.String(), Type.Array(Type.String()), {
      description: "Each rig's own pack directories (absolute), included before includer: their `overlay/`.",
    }),
  ),
});
export type CityConfig = Static<typeof CityConfigSchema>;
