import { parseGcArgs } from './args.ts';
import { GcAgentError } from './errors.ts';
import type { AgentIo } from './io.ts';
import { getSession, sessionKey, sessionUrl } from './sessionTarget.ts';
import { RUNTIME_SUBCOMMANDS } from './subcommands.ts';

/**
 * `gc runtime drain-ack|request-restart` from inside a session. Ours act at once through the session API
 * (no drain flags in the runtime's metadata): drain-ack closes an ephemeral session (its pool starts
 * another when there is work) and stops any other one; request-restart kills the session's process,
 * which the reconciler restarts, and blocks until that happens, as upstream's does.
 */
export async function runtime(io: AgentIo): Promise<number> {
  const [sub, ...argv] = io.argv;
  if (!sub) throw new GcAgentError(`missing subcommand (${RUNTIME_SUBCOMMANDS.join(', ')})`);
  if (!RUNTIME_SUBCOMMANDS.includes(sub)) throw new GcAgentError(`unknown subcommand "${sub}"`);
  const args = parseGcArgs(argv, {}, `runtime ${sub}`);
  if (sub === 'drain' || sub === 'undrain') return drain(io, args.positional, sub);
  if (args.positional.length > (sub === 'request-restart' ? 0 : 1))
    throw new GcAgentError('too many arguments');
  // Our drain acts at once (below), so no running session is ever "draining": drain-check answers 1.
  if (sub === 'drain-check') return 1;
  const id = args.positional[0] || io.env.GC_SESSION_ID?.trim();
  if (!id) throw new GcAgentError('not in session context (GC_ALIAS/GC_SESSION_ID not set)');
  const session = `${await io.client.cityPath()}/session/${encodeURIComponent(id)}`;
  if (sub === 'drain-ack') {
    io.out('Drain acknowledged. Controller will stop this session.\n');
    await new Promise<void>((r) => process.stdout.write('', () => r()));
    const ephemeral = (io.env.GC_SESSION_ORIGIN ?? 'ephemeral') === 'ephemeral';
    await io.client.call('POST', `${session}/${ephemeral ? 'close' : 'kill'}`);
    return 0;
  }
  io.out('Restart requested. Blocking until controller kills this session...\n');
  await new Promise<void>((r) => process.stdout.write('', () => r()));
  await io.client.call('POST', `${session}/kill`);
  // The kill ends this process with its session; until then, block as upstream does.
  await new Promise(() => setInterval(() => undefined, 1 << 30));
  return 0;
}

/**
 * `gc runtime drain|undrain <id>`: the session must be running; ours closes it at once (upstream marks it and the
 * controller stops it once it acknowledges). A pool worker's in-progress bead goes back to its pool.
 */
async function drain(io: AgentIo, positional: string[], sub: 'drain' | 'undrain'): Promise<number> {
  const [target, ...extra] = positional;
  if (!target || extra.length > 0) throw new GcAgentError('accepts 1 arg(s)');
  const session = await getSession(io, target);
  if (!session.running) throw new GcAgentError(`session "${sessionKey(target)}" is not running`);
  // `undrain`: ours never leaves a session draining (drain closes it at once), so a running session has
  // no drain mark to clear; it answers as upstream's does once the marks are gone.
  if (sub === 'undrain') {
    io.out(`Undrained session '${sessionKey(target)}'\n`);
    return 0;
  }
  await io.client.call('POST', await sessionUrl(io, session.id, 'close'));
  io.out(`Draining session '${sessionKey(target)}'\n`);
  return 0;
}
