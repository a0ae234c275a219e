/**
 * One way to run tmux against a city's private server: `execFile` (no shell, arguments as they are), the
 * socket always given, and tmux's "no server" / "can't find session" answers turned into SessionNotFoundError
 * so callers tell an absent session from a failure.
 */
import { execFile } from 'node:child_process';
import { RuntimeError, SessionNotFoundError } from './provider.ts';

const NOT_FOUND =
  /no server running|error connecting to|can't find (session|window|pane)|no such (session|window|pane)|session not found/i;

export class TmuxCommand {
  constructor(
    readonly socket: string,
    private readonly bin = 'tmux',
  ) {}

  /** Runs `tmux -L <socket> <args…>` and resolves with its stdout. */
  run(args: string[], signal?: AbortSignal): Promise<string> {
    return this.exec(args.map(escapeArg), signal);
  }

  /** Runs several tmux commands as one invocation (`a ; b ; c`): one process, and atomic for the server. */
  chain(commands: string[][], signal?: AbortSignal): Promise<string> {
    const args: string[] = [];
    for (const command of commands) {
      if (args.length > 0) args.push(';');
      args.push(...command.map(escapeArg));
    }
    return this.exec(args, signal);
  }

  private exec(args: string[], signal?: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        this.bin,
        ['-L', this.socket, ...args],
        { env: tmuxEnv(), maxBuffer: 64 * 1024 * 1024, signal, encoding: 'utf8' },
        (err, stdout, stderr) => {
          if (!err) return resolve(stdout);
          const detail = (stderr || err.message).trim();
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
            return reject(
              new RuntimeError(`tmux is not installed (${this.bin} not found on PATH)`, { cause: err }),
            );
          }
          if (NOT_FOUND.test(detail)) return reject(new SessionNotFoundError(detail, { cause: err }));
          reject(new RuntimeError(`tmux ${args[0] ?? ''} failed: ${detail}`, { cause: err }));
        },
      );
    });
  }
}

// tmux reads an argument that ends in `;` as the end of a command (also inside one command's arguments);
// `\;` keeps the semicolon. An env value or an option value may end in one.
function escapeArg(arg: string): string {
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}

/** tmux's exact-match target for a session (`-t name` alone also matches a prefix of another name). */
export function sessionTarget(name: string): string {
  return `=${name}`;
}

/** The active pane of a session, for pane and window commands. */
export function paneTarget(name: string): string {
  return `=${name}:`;
}

// A supervisor running inside tmux must not have its client talk to the enclosing server.
function tmuxEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}
