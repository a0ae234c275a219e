import {
  CONVOY_SUBCOMMANDS,
  MAIL_SUBCOMMANDS,
  NUDGE_SUBCOMMANDS,
  RUNTIME_SUBCOMMANDS,
  SESSION_FAST_SUBCOMMANDS,
} from './subcommands.ts';
import { BdError } from '../bd/errors.ts';
import { GcAgentError } from './errors.ts';
import { agentIo, type AgentIo } from './io.ts';

/**
 * The agent-facing `gc` commands that run on every agent turn (provider hooks call `gc hook --inject`,
 * `gc prime --hook`, `gc mail check --inject`): bin/gc.js sends them here before oclif loads, so they
 * cost what `bd` costs. Each is a client of the API, like every other command.
 */
type Command = (io: AgentIo) => Promise<number>;

// Loaded only when run: a hook's `gc hook --inject` should not pay for mail's and convoy's modules.
export const FAST_COMMANDS: Record<string, () => Promise<Command>> = {
  hook: async () => (await import('./hook.ts')).hook,
  prime: async () => (await import('./prime.ts')).prime,
  mail: async () => (await import('./mail.ts')).mail,
  convoy: async () => (await import('./convoy.ts')).convoy,
  runtime: async () => (await import('./runtime.ts')).runtime,
  nudge: async () => (await import('./nudge.ts')).nudge,
  handoff: async () => (await import('./handoff.ts')).handoff,
  session: async () => (await import('./session.ts')).session,
};

/** Runs one fast command; a failure is one line `gc <command>: <message>` and a non-zero exit. */
export async function runAgentCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [name, ...rest] = argv;
  const run = name ? FAST_COMMANDS[name] : undefined;
  if (!name || !run) {
    process.stderr.write(`gc: unknown command "${name ?? ''}"\n`);
    return 1;
  }
  try {
    return await (
      await run()
    )(agentIo(rest, env));
  } catch (err) {
    const subs =
      {
        mail: MAIL_SUBCOMMANDS,
        convoy: CONVOY_SUBCOMMANDS,
        runtime: RUNTIME_SUBCOMMANDS,
        session: SESSION_FAST_SUBCOMMANDS,
        nudge: NUDGE_SUBCOMMANDS,
      }[name] ?? [];
    const label = rest[0] && subs.includes(rest[0]) ? `gc ${name} ${rest[0]}` : `gc ${name}`;
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    process.stderr.write(`${label}: ${message}\n`);
    return err instanceof GcAgentError || err instanceof BdError ? err.exitCode : 1;
  }
}
