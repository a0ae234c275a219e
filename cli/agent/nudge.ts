import { bool } from '../bd/args.ts';
import { parseGcArgs } from './args.ts';
import { GcAgentError } from './errors.ts';
import { mailIdentity } from './identity.ts';
import type { AgentIo } from './io.ts';
import { nudgeSession } from './session.ts';
import { getSession } from './sessionTarget.ts';

/**
 * `gc nudge …`. Upstream's group has `status` and the hook's `drain [--inject]` over a nudge queue; its
 * prompts also write `gc nudge <target> "<msg>"` (39 times), which upstream's binary refuses: ours sends
 * it as `gc session nudge` does. Our nudges are delivered by the session API at once (a session that is
 * not running is woken first), so the queue `drain` and `status` read is always empty.
 */
export async function nudge(io: AgentIo): Promise<number> {
  const [sub, ...argv] = io.argv;
  if (sub === 'drain') return drain(io, argv);
  if (sub === 'status') return status(io, argv);
  if (!sub) throw new GcAgentError('missing subcommand (status, drain) or <target> <message>');
  return nudgeSession(io, io.argv, 'nudge');
}

/** `gc nudge drain [session] [--inject]`: nothing is ever due; `--inject` prints nothing, exit 0. */
async function drain(io: AgentIo, argv: string[]): Promise<number> {
  const args = parseGcArgs(argv, { inject: { kind: 'bool' } }, 'nudge drain');
  if (args.positional.length > 1) {
    if (bool(args, 'inject')) return 0;
    throw new GcAgentError('accepts at most 1 arg(s)');
  }
  return bool(args, 'inject') ? 0 : 1;
}

/** `gc nudge status [session]`: upstream's table, with the session's (always empty) queue. */
async function status(io: AgentIo, argv: string[]): Promise<number> {
  const args = parseGcArgs(argv, {}, 'nudge status');
  if (args.positional.length > 1) throw new GcAgentError('accepts at most 1 arg(s)');
  const who = args.positional[0] ?? (io.env.GC_ALIAS?.trim() || io.env.GC_SESSION_ID?.trim());
  if (!who || who === mailIdentity({}))
    throw new GcAgentError('no session given (set $GC_ALIAS or pass one)');
  const session = await getSession(io, who);
  const rows = [
    ['AGENT', 'PENDING', 'IN_FLIGHT', 'DEAD', 'SESSION'],
    [session.alias ?? session.template, '0', '0', '0', session.id],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  io.out(
    rows
      .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 2))).join(''))
      .join('\n') + '\n',
  );
  return 0;
}
