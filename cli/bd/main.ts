import { parseArgs, str, bool, type FlagSpec } from './args.ts';
import { BdClient } from './client.ts';
import { CREATE_FLAGS, create } from './cmdCreate.ts';
import { DEP_FLAGS, depCmd, labelCmd } from './cmdDep.ts';
import { BLOCKED_FLAGS, LIST_FLAGS, READY_FLAGS, blockedCmd, listCmd, readyCmd } from './cmdList.ts';
import { SHOW_FLAGS, showCmd } from './cmdShow.ts';
import { CLOSE_FLAGS, REOPEN_FLAGS, UPDATE_FLAGS, closeCmd, reopenCmd, updateCmd } from './cmdUpdate.ts';
import { jsonText, type BdContext } from './context.ts';
import { BdError, UnsupportedError } from './errors.ts';

type Run = (ctx: BdContext) => Promise<void>;

/** The bd subset gc's prompts and gc itself use; anything else is exit 2 naming it. */
const COMMANDS: Record<string, { flags: FlagSpec; run: Run; writes: boolean; errorsOnStdout?: boolean }> = {
  create: { flags: CREATE_FLAGS, run: create, writes: true },
  new: { flags: CREATE_FLAGS, run: create, writes: true },
  list: { flags: LIST_FLAGS, run: listCmd, writes: false },
  show: { flags: SHOW_FLAGS, run: showCmd, writes: false, errorsOnStdout: true },
  view: { flags: SHOW_FLAGS, run: showCmd, writes: false, errorsOnStdout: true },
  update: { flags: UPDATE_FLAGS, run: updateCmd, writes: true, errorsOnStdout: true },
  close: { flags: CLOSE_FLAGS, run: closeCmd, writes: true, errorsOnStdout: true },
  done: { flags: CLOSE_FLAGS, run: closeCmd, writes: true, errorsOnStdout: true },
  reopen: { flags: REOPEN_FLAGS, run: reopenCmd, writes: true, errorsOnStdout: true },
  ready: { flags: READY_FLAGS, run: readyCmd, writes: false },
  blocked: { flags: BLOCKED_FLAGS, run: blockedCmd, writes: false },
  dep: { flags: DEP_FLAGS, run: depCmd, writes: true, errorsOnStdout: true },
  label: { flags: {}, run: labelCmd, writes: true, errorsOnStdout: true },
};

const USAGE = `bd: a beads CLI backed by the Gas City supervisor's bead store
Commands: ${Object.keys(COMMANDS).join(', ')}
Global flags: --json, --actor <name>, -q/--quiet, --readonly`;

/**
 * Runs one bd invocation; resolves with its exit status. Failures are one line: `Error: <msg>` on stderr
 * (with --json, `{"error": …}` on stdout for the commands bd answers that way); unsupported is exit 2.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // The command is the first word that is neither a flag nor the value of `--actor`.
  const first = argv.findIndex((a, i) => !a.startsWith('-') && argv[i - 1] !== '--actor');
  const name = first >= 0 ? argv[first]! : undefined;
  const wantsJson = argv.includes('--json') || env.BD_JSON === 'true';
  if (!name || argv.includes('--help') || argv.includes('-h')) {
    if (argv.includes('--version')) {
      process.stdout.write('bd version 1.0.0 (gascity-supervisor)\n');
      return 0;
    }
    process.stdout.write(`${USAGE}\n`);
    return name || argv.length === 0 || argv.includes('--help') || argv.includes('-h') ? 0 : 2;
  }
  const cmd = COMMANDS[name];
  try {
    if (!cmd) throw new UnsupportedError(`unsupported command "bd ${name}"`);
    const args = parseArgs([...argv.slice(0, first), ...argv.slice(first + 1)], cmd.flags, name);
    if (cmd.writes && bool(args, 'readonly'))
      throw new BdError(`operation '${name}' is not allowed in read-only mode`);
    const ctx: BdContext = {
      client: new BdClient(env),
      args,
      json: bool(args, 'json') || env.BD_JSON === 'true',
      actor: str(args, 'actor') || env.BEADS_ACTOR || env.BD_ACTOR || env.USER || 'unknown',
      env,
      out: (text) => process.stdout.write(`${text}\n`),
      warn: (text) => process.stderr.write(`${text}\n`),
    };
    await cmd.run(ctx);
    return Number(process.exitCode ?? 0);
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    if (wantsJson && cmd?.errorsOnStdout && !(err instanceof UnsupportedError)) {
      process.stdout.write(`${jsonText({ error: message })}\n`);
    } else process.stderr.write(`Error: ${message}\n`);
    return err instanceof BdError ? err.exitCode : 1;
  }
}
