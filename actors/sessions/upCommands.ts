/**
 * What an agent's session gets once it is up, from the lifecycle keys agentStart.ts put in its metadata:
 * its `env` over the city's session environment, and its `session_setup` (then `session_setup_script`) and
 * `session_live` commands, expanded with the setup variables and the session's name (`{{.Session}}`, known
 * only now), run in its working directory with `GC_SESSION` set. Effects: runs shell commands.
 */
import { expandOrKeep } from '../../machines/agents/goTemplate.ts';
import { K, type SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import type { Logger } from '../runtime/logger.ts';
import type { CityConfig } from '../../schemas/cityToml.ts';
import { findAgent } from './agentStart.ts';
import { runSessionCommands } from './startSetup.ts';

/** Upstream's `[session] setup_timeout` default: each command's limit (the city's, when it sets one). */
const SETUP_TIMEOUT_MS = 10_000;

const jsonOf = (raw: string | undefined): unknown => {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
};
const stringsOf = (raw: string | undefined): string[] => {
  const v = jsonOf(raw);
  return Array.isArray(v) ? v.filter((c): c is string => typeof c === 'string') : [];
};
const recordOf = (raw: string | undefined): Record<string, string> => {
  const v = jsonOf(raw);
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
};

/** The agent's own `env` (already expanded), added over the city's session environment. */
export const agentEnvOf = (s: SessionRecord): Record<string, string> => recordOf(s.meta[K.env]);

/** Commands expanded for a session: its setup variables and its name. */
const expandFor = (s: SessionRecord, commands: readonly string[]): string[] => {
  const vars = { ...recordOf(s.meta[K.setupVars]), Session: s.sessionName };
  return commands.map((c) => expandOrKeep(c, vars));
};

/** The `session_setup` (`setup`) or `session_live` (`live`) commands of a session, expanded for it. */
export const upCommandsOf = (s: SessionRecord, which: 'setup' | 'live'): string[] =>
  expandFor(s, stringsOf(s.meta[which === 'setup' ? K.setup : K.live]));

/**
 * Runs them (none fatal: a failure is logged, as upstream logs it). `env` is the session's environment with
 * what setup commands alone get (`GC_TMUX_SOCKET`).
 */
export async function runUpCommands(
  s: SessionRecord,
  which: 'setup' | 'live',
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
  commands: readonly string[] = upCommandsOf(s, which),
): Promise<void> {
  if (commands.length === 0) return;
  const failures = await runSessionCommands(which === 'setup' ? 'session_setup' : 'session_live', commands, {
    cwd: s.workDir || process.cwd(),
    env: { ...process.env, ...env, GC_SESSION: s.sessionName },
    timeoutMs: Number(s.meta[K.setupTimeoutMs]) || SETUP_TIMEOUT_MS,
  });
  for (const failure of failures)
    logger.warn(
      { session: s.sessionName, failure },
      `${which === 'setup' ? 'session_setup' : 'session_live'} failed`,
    );
}

/**
 * Upstream re-runs an agent's `session_live` in its running sessions when the list changes, without a
 * restart: on each config change, every active session whose agent's list differs from the one it last
 * ran gets the new list.
 */
export class LiveRerun {
  /** Session id → the list (JSON) it last ran, over the one its metadata recorded at start. */
  readonly #ran = new Map<string, string>();

  constructor(
    private readonly envOf: (s: SessionRecord) => Readonly<Record<string, string | undefined>>,
    private readonly logger: Logger,
  ) {}

  /** Runs the changed lists (a failure is logged: never thrown). */
  async apply(sessions: readonly SessionRecord[], config: CityConfig): Promise<void> {
    for (const s of sessions) {
      if (s.state !== 'active') continue;
      const next = findAgent(config, s.template)?.session_live ?? [];
      const text = JSON.stringify(next);
      if (text === (this.#ran.get(s.id) ?? s.meta[K.live] ?? '[]')) continue;
      this.#ran.set(s.id, text);
      await runUpCommands(s, 'live', this.envOf(s), this.logger, expandFor(s, next)).catch((err: unknown) =>
        this.logger.warn({ err, session: s.sessionName }, 'session_live re-run failed'),
      );
    }
  }
}
