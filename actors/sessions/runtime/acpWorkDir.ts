/**
 * What an ACP agent may ask of its client's machine, confined to the session's work dir: text files read and
 * written (fs/*), and terminals (terminal/*) that run a command there. A path that resolves outside the work
 * dir (`..`, an absolute path elsewhere, a symlink leading out) is refused with the JSON-RPC error the agent
 * sees; nothing outside is touched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';

/** Output kept per terminal (the protocol lets the agent ask for less). */
const TERMINAL_OUTPUT_LIMIT = 1024 * 1024;

interface Terminal {
  proc: ChildProcess;
  output: string;
  truncated: boolean;
  exit?: { exitCode: number | null; signal: string | null };
  exited: Promise<void>;
}

export class WorkDirAccess {
  private readonly root: string;
  private readonly terminals = new Map<string, Terminal>();
  private next = 0;

  constructor(workDir: string) {
    this.root = realpathSync(workDir);
  }

  /** The real path `path` names, if it lies within the work dir. @throws RequestError (invalid params). */
  private inside(path: string): string {
    const wanted = resolve(this.root, path);
    let real = wanted;
    try {
      real = realpathSync(wanted);
    } catch {
      // Not there yet (a file to write): its folder must be inside.
      try {
        real = resolve(realpathSync(dirname(wanted)), wanted.slice(dirname(wanted).length + 1));
      } catch {
        real = wanted;
      }
    }
    const rel = relative(this.root, real);
    if (rel.startsWith('..') || isAbsolute(rel))
      throw RequestError.invalidParams({ path }, `${path} is outside the session's work dir ${this.root}`);
    return real;
  }

  async readTextFile(params: { path: string; line?: number | null; limit?: number | null }) {
    const text = await readFile(this.inside(params.path), 'utf8').catch((err: Error) => {
      throw RequestError.invalidParams({ path: params.path }, err.message);
    });
    if (!params.line && !params.limit) return { content: text };
    const lines = text.split('\n');
    const from = Math.max(0, (params.line ?? 1) - 1);
    return { content: lines.slice(from, params.limit ? from + params.limit : undefined).join('\n') };
  }

  async writeTextFile(params: { path: string; content: string }) {
    const target = this.inside(params.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, params.content);
    return {};
  }

  createTerminal(params: {
    command: string;
    args?: string[];
    cwd?: string | null;
    env?: { name: string; value: string }[];
    outputByteLimit?: number | null;
  }) {
    const cwd = this.inside(params.cwd ?? '.');
    const env = { ...process.env };
    for (const v of params.env ?? []) env[v.name] = v.value;
    const proc = spawn(params.command, params.args ?? [], { cwd, env, shell: !params.args?.length });
    const limit = params.outputByteLimit ?? TERMINAL_OUTPUT_LIMIT;
    const term: Terminal = { proc, output: '', truncated: false, exited: Promise.resolve() };
    const onData = (c: Buffer) => {
      term.output += c.toString('utf8');
      if (term.output.length > limit) {
        term.output = term.output.slice(-limit);
        term.truncated = true;
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    term.exited = new Promise((done) => {
      proc.on('close', (exitCode, signal) => {
        term.exit = { exitCode, signal };
        done();
      });
      proc.on('error', (err) => {
        term.output += err.message;
        term.exit = { exitCode: 127, signal: null };
        done();
      });
    });
    const terminalId = `term-${++this.next}`;
    this.terminals.set(terminalId, term);
    return { terminalId };
  }

  private terminal(id: string): Terminal {
    const term = this.terminals.get(id);
    if (!term) throw RequestError.invalidParams({ terminalId: id }, `no terminal ${id}`);
    return term;
  }

  terminalOutput(params: { terminalId: string }) {
    const term = this.terminal(params.terminalId);
    return {
      output: term.output,
      truncated: term.truncated,
      ...(term.exit ? { exitStatus: term.exit } : {}),
    };
  }

  async waitForExit(params: { terminalId: string }) {
    const term = this.terminal(params.terminalId);
    await term.exited;
    return { ...term.exit! };
  }

  killTerminal(params: { terminalId: string }) {
    this.terminal(params.terminalId).proc.kill('SIGKILL');
    return {};
  }

  releaseTerminal(params: { terminalId: string }) {
    const term = this.terminal(params.terminalId);
    if (!term.exit) term.proc.kill('SIGKILL');
    this.terminals.delete(params.terminalId);
    return {};
  }

  /** Ends every terminal still running (the session ends). */
  close(): void {
    for (const term of this.terminals.values()) if (!term.exit) term.proc.kill('SIGKILL');
    this.terminals.clear();
  }
}
