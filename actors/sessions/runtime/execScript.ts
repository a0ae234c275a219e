/**
 * One call of an exec runtime's script, by upstream's protocol: `<script> <operation> <args...>`, exec'd
 * without a shell, data on stdin, results on stdout; exit 0 is success, 2 an operation the script does not
 * know (success: scripts stay valid as operations are added), anything else an error carrying stderr. A
 * script that outlives its timeout is killed with its whole process group (a `sleep` it left holding the
 * pipes included) and the call fails saying so.
 */
import { spawn } from 'node:child_process';
import { RuntimeError } from './provider.ts';

export interface ScriptCall {
  args: string[];
  stdin?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A call that ended with exit 1 (or another failing status): the script's own message. */
export class ScriptError extends RuntimeError {
  constructor(
    message: string,
    readonly stderr: string,
    readonly exitCode: number | undefined,
  ) {
    super(message);
  }
}

/** Runs one operation; resolves with stdout (trailing newlines dropped), '' for exit 2. @throws ScriptError. */
export function runScript(script: string, call: ScriptCall): Promise<string> {
  return new Promise((resolve, reject) => {
    const what = `exec script ${script} ${call.args.join(' ')}`;
    const proc = spawn(script, call.args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    proc.stdout.on('data', (c: Buffer) => out.push(c));
    proc.stderr.on('data', (c: Buffer) => err.push(c));
    proc.stdin.on('error', () => undefined);
    proc.stdin.end(call.stdin ?? '');
    let killedFor: string | undefined;
    const kill = (why: string) => {
      killedFor ??= why;
      try {
        if (proc.pid !== undefined) process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // The group has ended already.
      }
      // A process outside the group may still hold the pipes: the call ends regardless.
      proc.stdout.destroy();
      proc.stderr.destroy();
    };
    const timer = setTimeout(
      () => kill(`timed out after ${call.timeoutMs} ms and was killed`),
      call.timeoutMs,
    );
    const onAbort = () => kill('was cancelled');
    call.signal?.addEventListener('abort', onAbort, { once: true });
    let spawnError: Error | undefined;
    proc.on('error', (e) => (spawnError = e));
    // `close`, not `exit`: stdout is complete only once the pipes are.
    proc.on('close', (code) => {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onAbort);
      const stderr = Buffer.concat(err).toString('utf8').trim();
      if (killedFor) return reject(new ScriptError(`${what} ${killedFor}`, stderr, undefined));
      if (spawnError) return reject(new ScriptError(`${what}: ${spawnError.message}`, stderr, undefined));
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8').replace(/\n+$/, ''));
      if (code === 2) return resolve('');
      reject(new ScriptError(`${what}: ${stderr || `exit status ${code}`}`, stderr, code ?? undefined));
    });
  });
}
