import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Test } from 'tap';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import { nodeChild } from '../helpers/childEnv.ts';
import { ROOT, runGc, type GcResult } from '../cli/helpers/gc.ts';
import { startSupervisorProc, type SupervisorProc } from '../cli/helpers/supervisorProc.ts';

export const BD_BIN = join(ROOT, 'bin', 'bd.js');

/** Runs the built `bd` to completion (stdin empty), capturing stdout and stderr. */
export function runBd(args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Promise<GcResult> {
  return runBdInput(args, env, undefined, cwd);
}

/** Runs the built `bd` with `input` on its stdin (empty when undefined), capturing stdout and stderr. */
export function runBdInput(
  args: string[],
  env: NodeJS.ProcessEnv,
  input: string | undefined,
  cwd = ROOT,
): Promise<GcResult> {
  const child = spawn(...nodeChild([BD_BIN, ...args]), { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  // A bd that exits before reading its input must not fail the test with EPIPE.
  child.stdin.on('error', () => {});
  child.stdin.end(input ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A real supervisor (child process) with one running city, and the env a session of it would give bd. */
export interface WorkCity {
  sup: SupervisorProc;
  name: string;
  dir: string;
  /** The environment of a command run inside the city (GC_API, GC_CITY = the city's name). */
  env: NodeJS.ProcessEnv;
  bd(args: string[], extra?: NodeJS.ProcessEnv): Promise<GcResult>;
  gc(args: string[], extra?: NodeJS.ProcessEnv): Promise<GcResult>;
}

export async function workCity(
  t: Test,
  opts: {
    natsUrl?: string;
    name?: string;
    startCommand?: string;
    supervisorEnv?: NodeJS.ProcessEnv;
    /** The session runtime: tmux (default) or subprocess. */
    runtime?: 'tmux' | 'subprocess';
    /** The supervisor's SSE heartbeat interval (default 1s). */
    heartbeat?: string;
  } = {},
): Promise<WorkCity> {
  // Sessions run on tmux unless asked; the city's tmux server is killed when the test ends (the
  // supervisor child is SIGKILLed and would leave it behind).
  const sup = await startSupervisorProc(t, {
    natsUrl: opts.natsUrl,
    ...(opts.heartbeat ? { heartbeat: opts.heartbeat } : {}),
    env: { GC_SESSION_RUNTIME: opts.runtime ?? 'tmux', ...opts.supervisorEnv },
  });
  const name = opts.name ?? 'alpha';
  t.teardown(() => {
    try {
      execFileSync('tmux', ['-L', tmuxSocketFor(name, sup.home), 'kill-server'], { stdio: 'ignore' });
    } catch {
      // No server was started.
    }
  });
  const dir = join(sup.cities, name);
  const made = await runGc(
    ['city', 'create', dir, '--start-command', opts.startCommand ?? 'sleep 600', '--wait'],
    {
      env: sup.env,
      cwd: sup.home,
    },
  );
  if (made.code !== 0) throw new Error(`city create failed: ${made.stderr}`);
  const env = { ...sup.env, GC_API: sup.url, GC_CITY: name, BEADS_ACTOR: 'tester' };
  return {
    sup,
    name,
    dir,
    env,
    bd: (args, extra = {}) => runBd(args, { ...env, ...extra }),
    gc: (args, extra = {}) => runGc(args, { env: { ...env, ...extra }, cwd: sup.home }),
  };
}
