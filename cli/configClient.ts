import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { agentFlags, agentMutation, agentTarget, type AgentTarget } from './agentClient.ts';
import { CliError } from './errors.ts';

/**
 * What `gc config`, `gc rig` and `gc provider` share with the agent commands: where the API is, which city
 * (`--city`, `GC_CITY`, or the city directory containing the current directory), and mutations sent with
 * the API's anti-CSRF header.
 */
export const cityFlags = agentFlags;
export const cityTarget: (flags: { api?: string; city?: string }) => Promise<AgentTarget> = agentTarget;
export const mutate = agentMutation;

/** `/v0/city/{city}/<rest>`, each segment of `rest` encoded. Pure. */
export const cityPath = (city: string, ...rest: string[]): string =>
  [`/v0/city/${encodeURIComponent(city)}`, ...rest.map(encodeURIComponent)].join('/');

/** The one argument of the per-rig and per-provider commands. */
export const nameArgOf = (what: string) => ({
  name: Args.string({ description: `${what} name`, required: true }),
});

/** `--env KEY=VALUE` (repeatable) into a map. Pure. @throws CliError for an entry without `=`. */
export function envOf(entries: string[] | undefined): Record<string, string> | undefined {
  if (!entries || entries.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const e of entries) {
    const at = e.indexOf('=');
    if (at <= 0) throw new CliError(`--env ${e}: expected KEY=VALUE`);
    env[e.slice(0, at)] = e.slice(at + 1);
  }
  return env;
}

/** Renders rows as an aligned text table (the last column unpadded). Pure. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** The flags `gc provider add` and `gc provider set` share: the keys of `[providers.<name>]`. */
export const providerFieldFlags = {
  command: Flags.string({ description: 'the executable' }),
  arg: Flags.string({ description: 'an argument (repeat for several; replaces the list)', multiple: true }),
  base: Flags.string({ description: 'the provider it inherits from' }),
  'display-name': Flags.string({ description: 'a human-readable name' }),
  'prompt-mode': Flags.string({ description: 'how the prompt reaches it', options: ['arg', 'flag', 'none'] }),
  'prompt-flag': Flags.string({ description: 'the flag that carries the prompt (prompt mode flag)' }),
  'ready-delay-ms': Flags.integer({ description: 'milliseconds to wait before it counts as ready', min: 0 }),
  env: Flags.string({ description: 'an environment variable, KEY=VALUE (repeatable)', multiple: true }),
};

/** The body fields the provider flags set (absent flags are left out). Pure. */
export function providerFields(flags: {
  command?: string;
  arg?: string[];
  base?: string;
  'display-name'?: string;
  'prompt-mode'?: string;
  'prompt-flag'?: string;
  'ready-delay-ms'?: number;
  env?: string[];
}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (flags.command !== undefined) body.command = flags.command;
  if (flags.arg !== undefined) body.args = flags.arg;
  if (flags.base !== undefined) body.base = flags.base;
  if (flags['display-name'] !== undefined) body.display_name = flags['display-name'];
  if (flags['prompt-mode'] !== undefined) body.prompt_mode = flags['prompt-mode'];
  if (flags['prompt-flag'] !== undefined) body.prompt_flag = flags['prompt-flag'];
  if (flags['ready-delay-ms'] !== undefined) body.ready_delay_ms = flags['ready-delay-ms'];
  const env = envOf(flags.env);
  if (env) body.env = env;
  return body;
}
