import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { bool } from '../bd/args.ts';
import { parseGcArgs } from './args.ts';
import { hookAgent } from './identity.ts';
import type { AgentIo } from './io.ts';
import { agentView, citySuspended } from './hook.ts';

/** The built-in worker prompt (for agents without a prompt template): how to find, do and close work. */
export const WORKER_PROMPT = `# Gas City worker

You work in a Gas City workspace. Your work items are beads.

## Commands
- \`gc hook\`: the next bead for you (exit 1 when there is none)
- \`bd ready\`: open, unblocked beads
- \`bd show <id>\`: a bead's details
- \`bd update <id> --claim\`: take a bead (fails if someone else has it)
- \`bd close <id>\`: finish a bead

## Loop
1. Run \`gc hook\` (or \`bd ready\`) to find work.
2. Claim the bead, do what its title and description ask.
3. Close it with \`bd close <id>\`, then look for more until none is left.
`;

const pad = (n: number): string => String(n).padStart(2, '0');
const stamp = (d: Date): string =>
  `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;

/**
 * The role prompt the caller's session was started with (its `prompt_template` rendered when the session
 * was created; agentStart.ts keeps it, beacon first, in the session bead's `gc.prompt`), or undefined: no
 * session, a session without a template, or no answer.
 */
async function sessionPrompt(io: AgentIo): Promise<string | undefined> {
  const id = io.env.GC_SESSION_ID?.trim();
  if (!id) return undefined;
  try {
    const path = `${await io.client.cityPath()}/bead/${encodeURIComponent(id)}`;
    const stored = ((await io.client.call('GET', path)).body as { metadata?: Record<string, string> })
      .metadata?.['gc.prompt'];
    const cut = stored?.indexOf('\n\n') ?? -1;
    return cut >= 0 ? stored!.slice(cut + 2) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `gc prime [agent] [--hook]`: the agent's prompt (inside a session: its rendered `prompt_template`; else,
 * or without one, the built-in worker prompt), nothing for a suspended agent or city. `--hook` prepends the beacon
 * `[<city>] <agent> • <time>` and records the provider session id in `./.runtime/session_id`. Always exit 0.
 */
export async function prime(io: AgentIo): Promise<number> {
  const args = parseGcArgs(io.argv, { hook: { kind: 'bool' } }, 'prime');
  const agent = hookAgent(io.env, args.positional[0]);
  // A suspended city, or agent, gets no prompt (upstream); the reads go out together (one round trip of
  // latency). No city, no supervisor, or an unknown agent: the built-in prompt, as upstream.
  const promptP = args.positional[0] === undefined ? sessionPrompt(io) : Promise.resolve(undefined);
  const [city, view] = await Promise.allSettled([
    citySuspended(io),
    agent ? agentView(io, agent) : Promise.reject(new Error('no agent')),
  ]);
  const suspended =
    (city.status === 'fulfilled' && city.value) ||
    (view.status === 'fulfilled' && view.value.suspended === true);
  const rendered = await promptP;
  if (suspended) return 0;
  let text = rendered ? (rendered.endsWith('\n') ? rendered : `${rendered}\n`) : WORKER_PROMPT;
  if (bool(args, 'hook')) {
    const sessionId = io.env.GC_SESSION_ID?.trim() || io.env.CLAUDE_SESSION_ID?.trim();
    if (sessionId) {
      try {
        mkdirSync('.runtime', { recursive: true });
        writeFileSync(join('.runtime', 'session_id'), `${sessionId}\n`);
      } catch {
        // A read-only work dir: the beacon still goes out.
      }
    }
    const cityName = io.env.GC_CITY?.trim() || 'city';
    text = `[${cityName}] ${io.env.GC_ALIAS?.trim() || io.env.GC_AGENT?.trim() || agent || 'agent'} • ${stamp(new Date())}\n\n${text}`;
  }
  io.out(text);
  return 0;
}
