import type { Message } from '../../schemas/mail.ts';
import { str } from '../bd/args.ts';
import { parseGcArgs } from './args.ts';
import { GcAgentError } from './errors.ts';
import { currentSession } from './identity.ts';
import type { AgentIo } from './io.ts';
import { getSession, sessionKey, sessionUrl } from './sessionTarget.ts';

/**
 * `gc handoff <subject> [message] [--target <alias-or-id>]`: hand the work to a fresh context. Self (the
 * default, inside a session): a mail to itself, then its process is killed, which the reconciler restarts
 * with the mail waiting; like upstream's, it blocks until the kill ends it. `--target`: the mail goes to
 * that session and its process is killed, and the command returns at once.
 */
export async function handoff(io: AgentIo): Promise<number> {
  const args = parseGcArgs(io.argv, { target: { kind: 'string' } }, 'handoff');
  const [subject, body, ...extra] = args.positional;
  if (!subject?.trim() || extra.length > 0) throw new GcAgentError('accepts between 1 and 2 arg(s)');
  const target = str(args, 'target');
  const self = currentSession(io.env);
  if (target === undefined && !self)
    throw new GcAgentError('not in session context (GC_ALIAS/GC_SESSION_ID not set)');
  const to = target === undefined ? self! : sessionKey(target);
  // The target must exist before anything is written: a bad target changes nothing.
  const session = await getSession(io, target === undefined ? io.env.GC_SESSION_ID?.trim() || self! : to);
  const sent = (
    await io.client.call('POST', `${await io.client.cityPath()}/mail`, {
      to,
      subject,
      ...(body ? { body } : {}),
      from: self ?? 'human',
    })
  ).body as Message;
  if (target !== undefined) {
    if (!session.running) {
      io.out(
        `Handoff: sent mail ${sent.id} to ${to} (session not running; will be delivered on next start)\n`,
      );
      return 0;
    }
    await io.client.call('POST', await sessionUrl(io, session.id, 'kill'));
    io.out(`Handoff: sent mail ${sent.id} to ${to}, killed session (reconciler will restart)\n`);
    return 0;
  }
  io.out(`Handoff: sent mail ${sent.id}, requesting restart...\n`);
  await new Promise<void>((r) => process.stdout.write('', () => r()));
  await io.client.call('POST', await sessionUrl(io, session.id, 'kill'));
  // The kill ends this process with its session; until then, block as upstream does.
  await new Promise(() => setInterval(() => undefined, 1 << 30));
  return 0;
}
