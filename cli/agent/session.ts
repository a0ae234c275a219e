import { str, type FlagSpec } from '../bd/args.ts';
import { parseGcArgs } from './args.ts';
import { GcAgentError } from './errors.ts';
import type { AgentIo } from './io.ts';
import { getSession, sendText, sessionKey } from './sessionTarget.ts';
import { SESSION_FAST_SUBCOMMANDS } from './subcommands.ts';

/**
 * `gc session peek|nudge` on the fast path (agents call them from their prompts; the other `gc session`
 * verbs are oclif commands). Each is a client of the session API.
 */

const DELIVERIES = ['wait-idle', 'immediate', 'queue'];
export const NUDGE_FLAGS: FlagSpec = { delivery: { kind: 'string' } };

/**
 * `gc session peek <id> [--lines 50]`: the last lines of the session's screen (GET …?peek=true). Prompts
 * write `gc session peek <target> 50`; a second, numeric positional is read as `--lines`.
 */
async function peek(io: AgentIo, argv: string[]): Promise<number> {
  const args = parseGcArgs(argv, { lines: { kind: 'string' } }, 'session peek');
  const [target, count, ...extra] = args.positional;
  if (!target || extra.length > 0 || (count !== undefined && str(args, 'lines') !== undefined))
    throw new GcAgentError('accepts 1 arg(s)');
  const raw = str(args, 'lines') ?? count ?? '50';
  if (!/^\d+$/.test(raw)) throw new GcAgentError(`invalid line count "${raw}"`);
  const session = await getSession(io, target, { peek: 'true', peek_lines: raw });
  const text = session.last_output ?? '';
  if (text !== '') io.out(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}

/**
 * `gc session nudge <id> <message…> [--delivery wait-idle|immediate|queue]`. Ours has no nudge queue: the
 * messages API delivers at once to a running session and wakes one that is not, then delivers. So
 * `wait-idle` answers `Nudged` for a running session and `Queued nudge for` otherwise, `queue` always says
 * queued, and `immediate` refuses a session that is not running, as upstream's does.
 */
export async function nudgeSession(io: AgentIo, argv: string[], command: string): Promise<number> {
  const args = parseGcArgs(argv, NUDGE_FLAGS, command);
  const [target, ...words] = args.positional;
  if (!target || words.length === 0) throw new GcAgentError('requires a session and a message');
  const delivery = str(args, 'delivery') ?? 'wait-idle';
  if (!DELIVERIES.includes(delivery))
    throw new GcAgentError(`invalid --delivery "${delivery}" (${DELIVERIES.join(', ')})`);
  const text = words.join(' ');
  if (text.trim() === '') throw new GcAgentError('empty message');
  const session = await getSession(io, target);
  const key = sessionKey(target);
  if (delivery === 'immediate' && !session.running) throw new GcAgentError(`session "${key}" is not running`);
  await sendText(io, session, text);
  io.out(delivery !== 'queue' && session.running ? `Nudged ${key}\n` : `Queued nudge for ${key}\n`);
  return 0;
}

/** `gc session <peek|nudge> …`. */
export async function session(io: AgentIo): Promise<number> {
  const [sub, ...argv] = io.argv;
  if (sub === 'peek') return peek(io, argv);
  if (sub === 'nudge') return nudgeSession(io, argv, 'session nudge');
  throw new GcAgentError(`unknown subcommand "${sub ?? ''}" (${SESSION_FAST_SUBCOMMANDS.join(', ')})`);
}
