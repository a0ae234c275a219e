/**
 * What a session runs: a create names an agent of the city (`[[agent]]` in city.toml), a provider preset
 * (`kind: "provider"`), or nothing (the city's default template: its `[workspace] provider` or
 * `start_command`). This turns that into the command, the readiness hint and how conversations are named.
 */
import { randomUUID } from 'node:crypto';
import type { CityConfig } from '../../schemas/cityToml.ts';
import { NotFoundError, ValidationError } from '../runtime/errors.ts';
import { builtinPresets, shellQuote, type ProviderPreset } from './runtime/presets.ts';

export interface SessionTemplate {
  /** The template's name (`template` of the session). */
  name: string;
  /** The provider preset's name, or `custom` for a bare start command. */
  provider: string;
  kind: 'agent' | 'provider';
  /** The base shell command, before conversation flags and the first message. */
  command: string;
  preset?: ProviderPreset;
  /** `acp`: sessions of it speak the Agent Client Protocol. */
  transport?: 'acp';
}

/**
 * The template's ACP form when its agent (`session = "acp"`) or its city (`[session] provider = "acp"`) asks:
 * the provider's ACP command. @throws ValidationError when the provider does not declare `supports_acp`.
 */
function withTransport(
  t: SessionTemplate,
  config: CityConfig,
  agentSession: string | undefined,
): SessionTemplate {
  const asked = agentSession ?? (config.session?.provider === 'acp' ? 'acp' : undefined);
  if (asked === undefined || asked === '') return t;
  if (asked !== 'acp')
    throw new ValidationError(
      `agent ${t.name}: session ${JSON.stringify(asked)} is not a session transport (use "acp" or omit it)`,
    );
  if (!t.preset?.supportsAcp)
    throw new ValidationError(
      `agent ${t.name}: session = "acp" needs a provider with supports_acp = true, and ${t.provider} does not declare it`,
    );
  return { ...t, command: t.preset.acpCommand ?? t.preset.command, transport: 'acp' };
}

/** The template a create means. @throws NotFoundError for an unknown agent or provider. */
export function resolveTemplate(
  config: CityConfig,
  kind: string | undefined,
  name: string | undefined,
): SessionTemplate {
  const presets = { ...builtinPresets(), ...config.providers };
  if (kind !== undefined && kind !== '' && kind !== 'agent' && kind !== 'provider') {
    throw new ValidationError(`kind must be "agent" or "provider", not ${JSON.stringify(kind)}`, 'invalid', {
      errors: [{ location: 'body.kind', message: 'expected agent or provider', value: kind }],
    });
  }
  if (kind === 'provider') {
    const preset = name ? presets[name] : undefined;
    if (!preset) throw new NotFoundError(`provider ${JSON.stringify(name ?? '')} not found`);
    return withTransport(
      { name: preset.name, provider: preset.name, kind: 'provider', command: preset.command, preset },
      config,
      undefined,
    );
  }
  if (name) {
    const agent =
      config.agents.find((a) => (a.dir ? `${a.dir}/${a.name}` : a.name) === name) ??
      config.agents.find((a) => !a.dir && a.name === name);
    if (agent) {
      const providerName = agent.provider ?? config.provider;
      const preset = providerName ? presets[providerName] : undefined;
      const command = agent.start_command ?? preset?.command ?? config.startCommand;
      if (!command) throw new NotFoundError(`agent ${name} has no provider or start_command`);
      const template: SessionTemplate = {
        name,
        provider: agent.start_command ? 'custom' : (preset?.name ?? 'custom'),
        kind: 'agent',
        command,
        ...(agent.start_command || !preset ? {} : { preset }),
      };
      return withTransport(template, config, agent.session);
    }
    // The city's default template answers to its provider's name too.
    if (name !== config.provider) throw new NotFoundError(`agent ${JSON.stringify(name)} not found`);
  }
  if (config.provider) {
    const preset = presets[config.provider];
    if (!preset) throw new NotFoundError(`provider ${JSON.stringify(config.provider)} has no preset`);
    return withTransport(
      { name: config.provider, provider: preset.name, kind: 'agent', command: preset.command, preset },
      config,
      undefined,
    );
  }
  if (config.startCommand)
    return { name: 'default', provider: 'custom', kind: 'agent', command: config.startCommand };
  throw new NotFoundError('the city has no default session template (no provider or start_command)');
}

/**
 * The preset a session of `provider` and `template` starts with: the city's `[providers.*]` over the
 * builtins (a provider of the city's own, `base = "claude"`, keeps Claude's flags), then the agent's own
 * readiness keys (`ready_prompt_prefix`, `ready_delay_ms`), as upstream's agent keys replace the provider's.
 */
export function sessionPreset(
  config: CityConfig,
  s: { provider: string; template: string },
): ProviderPreset | undefined {
  const base = { ...builtinPresets(), ...config.providers }[s.provider];
  if (!base) return undefined;
  const agent =
    config.agents.find((a) => (a.dir ? `${a.dir}/${a.name}` : a.name) === s.template) ??
    config.agents.find((a) => !a.dir && a.name === s.template);
  if (!agent || agent.start_command) return base;
  return {
    ...base,
    ...(agent.ready_prompt_prefix !== undefined ? { readyPromptPrefix: agent.ready_prompt_prefix } : {}),
    ...(agent.ready_delay_ms !== undefined ? { readyDelayMs: agent.ready_delay_ms } : {}),
  };
}

/** The session metadata key that keeps a session's transport (`acp`) for each start. */
export const TRANSPORT_KEY = 'gc.transport';

/** A conversation id minted before the first start, for CLIs that take one (`--session-id`). */
export const mintSessionKey = (template: SessionTemplate): string | undefined =>
  template.preset?.sessionIdFlag ? randomUUID() : undefined;

/**
 * The command of one start: the first start names the conversation (`--session-id <key>`) and carries the
 * first message as an argument; later starts resume it (`--resume <key>`).
 */
export function launchCommand(
  base: string,
  preset: ProviderPreset | undefined,
  opts: {
    sessionKey?: string;
    firstStart: boolean;
    firstMessage?: string;
    prompt?: StartPrompt;
    /** The prompt's text was written to this file: the command reads it back (`"$(cat file)"`). */
    promptFile?: string;
    /** gc's hook settings file, passed with the preset's `settingsFlag` (upstream's `--settings`). */
    settingsFile?: string;
  },
): string {
  const words = [base];
  if (preset?.settingsFlag && opts.settingsFile)
    words.push(preset.settingsFlag, shellQuote(opts.settingsFile));
  if (preset && opts.sessionKey) {
    if (opts.firstStart && preset.sessionIdFlag)
      words.push(preset.sessionIdFlag, shellQuote(opts.sessionKey));
    else if (!opts.firstStart && preset.resumeFlag)
      words.push(preset.resumeFlag, shellQuote(opts.sessionKey));
  }
  const prompt = opts.prompt;
  if (opts.firstStart && prompt && prompt.mode !== 'none') {
    // The role prompt, with the API's first message after it (upstream's "User message:").
    const text = promptArgument(prompt, opts.firstMessage);
    if (prompt.mode === 'flag' && prompt.flag) words.push(prompt.flag);
    words.push(opts.promptFile ? `"$(cat ${shellQuote(opts.promptFile)})"` : shellQuote(text));
  } else if (opts.firstStart && opts.firstMessage && preset?.promptMode === 'arg')
    words.push(shellQuote(opts.firstMessage));
  return words.join(' ');
}

/**
 * Upstream's `maxInlinePromptLen`: a longer prompt does not fit tmux's command buffer, so it is written
 * to a file the command reads back.
 */
export const MAX_INLINE_PROMPT = 1024;

/** The text a first start passes as the prompt argument (the role prompt, then the API's first message). */
export const promptArgument = (prompt: StartPrompt, firstMessage?: string): string =>
  firstMessage ? `${prompt.text}\n\nUser message:\n${firstMessage}` : prompt.text;

/** An agent's role prompt and how its provider takes it (`arg`, `flag` with its flag, or `none`: typed). */
export interface StartPrompt {
  text: string;
  mode: string;
  flag?: string;
}

/** The prompt a session's metadata carries (agentStart.ts wrote it), if any. */
export function startPromptOf(meta: Record<string, string | undefined>): StartPrompt | undefined {
  const text = meta['gc.prompt'];
  if (!text) return undefined;
  const flag = meta['gc.prompt_flag'];
  return { text, mode: meta['gc.prompt_mode'] ?? 'arg', ...(flag ? { flag } : {}) };
}

/**
 * What is typed into a session once it has started (first start only): a prompt its provider does not
 * take on the command line, then the agent's nudge, separated by a line as upstream does.
 */
export function startupNudge(
  meta: Record<string, string | undefined>,
  /** The CLI runs gc's hooks: its SessionStart hook (`gc prime --hook`) delivers the prompt, not the nudge. */
  hooked = false,
): string | undefined {
  const prompt = hooked ? undefined : startPromptOf(meta);
  const parts = [
    ...(prompt?.mode === 'none' ? [prompt.text] : []),
    ...(meta['gc.nudge'] ? [meta['gc.nudge']] : []),
  ];
  return parts.length > 0 ? parts.join('\n\n---\n\n') : undefined;
}
