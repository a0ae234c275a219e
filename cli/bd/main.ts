import { parseArgs, str, bool, type FlagSpec } from './args.ts';
import { BdClient } from './client.ts';
import { jsonText, type BdContext } from './context.ts';
import { BdError, UnsupportedError } from './errors.ts';

type Run = (ctx: BdContext) => Promise<void>;
type Loaded = { flags: FlagSpec; run: Run };

// Each command's module is loaded only when it runs: bd's start-up is what agents pay on every call.
const create = async (): Promise<Loaded> => {
  const m = await import('./cmdCreate.ts');
  return { flags: m.CREATE_FLAGS, run: m.create };
};
const show = async (): Promise<Loaded> => {
  const m = await import('./cmdShow.ts');
  return { flags: m.SHOW_FLAGS, run: m.showCmd };
};
const update = async (): Promise<Loaded> => {
  const m = await import('./cmdUpdate.ts');
  return { flags: m.UPDATE_FLAGS, run: m.updateCmd };
};
const close = async (): Promise<Loaded> => {
  const m = await import('./cmdUpdate.ts');
  return { flags: m.CLOSE_FLAGS, run: m.closeCmd };
};
const reopen = async (): Promise<Loaded> => {
  const m = await import('./cmdUpdate.ts');
  return { flags: m.REOPEN_FLAGS, run: m.reopenCmd };
};
const listing = (which: 'list' | 'ready' | 'blocked') => async (): Promise<Loaded> => {
  const m = await import('./cmdList.ts');
  if (which === 'list') return { flags: m.LIST_FLAGS, run: m.listCmd };
  if (which === 'ready') return { flags: m.READY_FLAGS, run: m.readyCmd };
  return { flags: m.BLOCKED_FLAGS, run: m.blockedCmd };
};
const dep = async (): Promise<Loaded> => {
  const m = await import('./cmdDep.ts');
  return { flags: m.DEP_FLAGS, run: m.depCmd };
};
const label = async (): Promise<Loaded> => {
  const m = await import('./cmdDep.ts');
  return { flags: {}, run: m.labelCmd };
};
const comments = (which: 'comments' | 'comment' | 'note') => async (): Promise<Loaded> => {
  const m = await import('./cmdComments.ts');
  if (which === 'comments') return { flags: m.COMMENTS_FLAGS, run: m.commentsCmd };
  if (which === 'comment') return { flags: m.COMMENT_FLAGS, run: m.commentCmd };
  return { flags: m.NOTE_FLAGS, run: m.noteCmd };
};
const mol = async (): Promise<Loaded> => {
  const m = await import('./cmdMol.ts');
  return { flags: m.MOL_FLAGS, run: m.molCmd };
};

/** The bd subset gc's prompts and gc itself use; anything else is exit 2 naming it. */
type Writes = boolean | ((positional: readonly string[]) => boolean);
const COMMANDS: Record<string, { load: () => Promise<Loaded>; writes: Writes; errorsOnStdout?: boolean }> = {
  create: { load: create, writes: true },
  new: { load: create, writes: true },
  list: { load: listing('list'), writes: false },
  show: { load: show, writes: false, errorsOnStdout: true },
  view: { load: show, writes: false, errorsOnStdout: true },
  update: { load: update, writes: true, errorsOnStdout: true },
  close: { load: close, writes: true, errorsOnStdout: true },
  done: { load: close, writes: true, errorsOnStdout: true },
  reopen: { load: reopen, writes: true, errorsOnStdout: true },
  ready: { load: listing('ready'), writes: false },
  blocked: { load: listing('blocked'), writes: false },
  dep: { load: dep, writes: true, errorsOnStdout: true },
  label: { load: label, writes: (p) => p[0] !== 'list', errorsOnStdout: true },
  comments: { load: comments('comments'), writes: (p) => p[0] === 'add', errorsOnStdout: true },
  comment: { load: comments('comment'), writes: true, errorsOnStdout: true },
  note: { load: comments('note'), writes: true, errorsOnStdout: true },
  mol: { load: mol, writes: (p) => ['wisp', 'pour', 'burn'].includes(p[0] ?? '') },
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
    const loaded = await cmd.load();
    const args = parseArgs([...argv.slice(0, first), ...argv.slice(first + 1)], loaded.flags, name);
    const writes = typeof cmd.writes === 'function' ? cmd.writes(args.positional) : cmd.writes;
    if (writes && bool(args, 'readonly'))
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
    await loaded.run(ctx);
    return Number(process.exitCode ?? 0);
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    if (wantsJson && cmd?.errorsOnStdout && !(err instanceof UnsupportedError)) {
      process.stdout.write(`${jsonText({ error: message })}\n`);
    } else process.stderr.write(`Error: ${message}\n`);
    return err instanceof BdError ? err.exitCode : 1;
  }
}
