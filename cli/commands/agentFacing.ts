import { Command } from '@oclif/core/command';

/**
 * The agent-facing commands that run on the fast path (cli/agent/, no oclif: bin/gc.js dispatches them
 * first) registered here too, so that `gc --help` lists them and `gc <command> --help` explains them.
 * Their run() is reached only if the launcher did not take the fast path; it hands over to the same code.
 */
interface Doc {
  /** The words of the command (`['session', 'peek']`). */
  words: string[];
  summary: string;
  description: string;
  usage: string;
  examples: { description: string; command: string }[];
}

function fastCommand(doc: Doc): typeof Command {
  return class extends Command {
    static override summary = doc.summary;
    static override description = doc.description;
    static override usage = doc.usage;
    static override examples = doc.examples;
    static override strict = false;

    async run(): Promise<void> {
      const { runAgentCommand } = await import('../agent/main.ts');
      process.exitCode = await runAgentCommand([...doc.words, ...this.argv]);
    }
  };
}

const ex = (description: string, command: string) => ({
  description,
  command: `<%= config.bin %> ${command}`,
});

export const Hook = fastCommand({
  words: ['hook'],
  summary: "Show the agent's work (its work_query).",
  description: `Runs the agent's work query (upstream's default: its in-progress bead, then a ready bead assigned to it, then ready unassigned work routed to its template, then a routed molecule) through the bead API and prints the first hit as bd's JSON array. Exit 0 with work, 1 without. With --inject (the Stop hook) prints a <system-reminder> only when there is work and always exits 0. The agent is the argument, else $GC_TEMPLATE inside a session, else $GC_ALIAS / $GC_AGENT.`,
  usage: 'hook [agent] [--inject]',
  examples: [ex('What is on my hook', 'hook'), ex('As the Stop hook runs it', 'hook --inject')],
});

export const Prime = fastCommand({
  words: ['prime'],
  summary: "Print the agent's prompt (the SessionStart hook).",
  description: `Prints the worker prompt for the agent in scope; --hook prefixes upstream's beacon line "[<city>] <agent> • <time>" and records the provider's session id in ./.runtime/session_id. Always exits 0.`,
  usage: 'prime [agent] [--hook]',
  examples: [ex('The prompt', 'prime'), ex('As the SessionStart hook runs it', 'prime --hook')],
});

export const Mail = fastCommand({
  words: ['mail'],
  summary: 'Send and read mail between agents and humans.',
  description: `Subcommands: send [<to>] [<body>…] (-s/--subject, -m/--message, --to, --from, --notify), inbox [session], check [session] [--inject], read <id>, peek <id>, reply <id> [body…], archive <id>, delete <id>, mark-read <id>, mark-unread <id>, count [session]. Messages are beads of type message, through the city's mail API; the sender and the mailbox default to the session's identity ($GC_ALIAS, $GC_SESSION_ID, $GC_AGENT, else human).`,
  usage: 'mail <subcommand> …',
  examples: [
    ex('Report to the mayor', 'mail send mayor/ -s "Done" -m "closed gc-12"'),
    ex('Unread mail', 'mail inbox'),
  ],
});

export const Convoy = fastCommand({
  words: ['convoy'],
  summary: 'Group beads into convoys and follow their progress.',
  description: `Subcommands: create <name> [ids…] [--owned], list, status <id>, close <id>, check (closes every open, non-owned convoy whose members are all closed). Output lines are upstream's.`,
  usage: 'convoy <subcommand> …',
  examples: [ex('Track two beads', 'convoy create release gc-1 gc-2'), ex('Progress', 'convoy status gc-9')],
});

export const Runtime = fastCommand({
  words: ['runtime'],
  summary: "Drain or restart a session from inside it (or another one's).",
  description: `Subcommands: drain <id> (the session must be running; ours closes it at once), undrain <id> (the session must be running; ours never leaves one draining, so there is nothing to clear), drain-check [id] (exit 0 when draining: ours never is), drain-ack [id] (the session is done: an ephemeral one is closed, another killed for the reconciler to restart), request-restart (kills the current session and blocks until that ends it).`,
  usage: 'runtime <subcommand> …',
  examples: [ex('Done with my work', 'runtime drain-ack'), ex('Drain a worker', 'runtime drain polecat-2')],
});

export const Nudge = fastCommand({
  words: ['nudge'],
  summary: 'Nudge a session with a line of text (or read the nudge queue).',
  description: `gc nudge <target> <message…> types the message into the session, as "gc session nudge" does (the form upstream's prompts use). Subcommands: status [session] (upstream's table; ours has no queue, so it is empty), drain [session] [--inject] (the UserPromptSubmit hook: nothing is ever queued, so --inject prints nothing and plain drain exits 1).`,
  usage: 'nudge <target> <message…> | nudge status [session] | nudge drain [--inject]',
  examples: [
    ex('Wake the deacon', 'nudge deacon/ "check the refinery"'),
    ex('As the hook runs it', 'nudge drain --inject'),
  ],
});

export const Handoff = fastCommand({
  words: ['handoff'],
  summary: 'Hand the current work to a fresh context (mail, then restart).',
  description: `Sends <subject> [message] as mail to the current session's own address and kills its process; the reconciler restarts it with the mail waiting. Blocks until the kill ends it, as upstream's does. With --target <alias-or-id> the mail goes to that session and its process is killed (restarted by the reconciler); the command then returns at once.`,
  usage: 'handoff <subject> [message] [--target <session>]',
  examples: [
    ex('Before the context fills up', 'handoff "context cycle" "next: finish gc-12"'),
    ex('Restart a colleague with a note', 'handoff "new plan" "see gc-40" --target polecat-2'),
  ],
});

export const SessionPeek = fastCommand({
  words: ['session', 'peek'],
  summary: "Print the last lines of a session's screen.",
  description: `GETs /v0/city/{city}/session/{id}?peek=true and prints the session's last --lines (default 50) screen lines. A second numeric argument is read as --lines (upstream's prompts write "gc session peek <target> 50").`,
  usage: 'session peek <id-or-alias> [--lines n]',
  examples: [
    ex("The mayor's screen", 'session peek mayor'),
    ex('Only 10 lines', 'session peek polecat-1 --lines 10'),
  ],
});

export const SessionNudge = fastCommand({
  words: ['session', 'nudge'],
  summary: 'Type a line of text into a session.',
  description: `Sends the words, joined, to the session through POST /v0/city/{city}/session/{id}/messages (a session that is not running is woken first). Prints "Nudged <id>" for a running session, "Queued nudge for <id>" otherwise or with --delivery queue; --delivery immediate refuses a session that is not running.`,
  usage: 'session nudge <id-or-alias> <message…> [--delivery wait-idle|immediate|queue]',
  examples: [
    ex('A nudge', 'session nudge polecat-1 "check your hook"'),
    ex('Only if it is running', 'session nudge mayor "status?" --delivery immediate'),
  ],
});
