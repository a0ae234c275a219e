import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `$GC_HOME`, or `~/.gc`: where the supervisor keeps its config, registry, pid and address files. */
export function gcHome(env: NodeJS.ProcessEnv = process.env, flag?: string): string {
  const fromEnv = env.GC_HOME?.trim();
  return resolve(flag ?? (fromEnv || join(homedir(), '.gc')));
}

/** What a running supervisor records in `$GC_HOME/supervisor.json`. */
export interface SupervisorRecord {
  pid: number;
  url: string;
}

/** Reads `$GC_HOME/supervisor.json`; undefined when it is missing or not `{pid, url}`. Reads one file. */
export function readSupervisorRecord(home: string): SupervisorRecord | undefined {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const rec = body as Partial<SupervisorRecord> | null;
  if (!rec || !Number.isInteger(rec.pid) || typeof rec.url !== 'string') return undefined;
  return { pid: rec.pid!, url: rec.url };
}

/** Reads `$GC_HOME/supervisor.pid` (written by `gc supervisor start`); undefined when absent or garbled. */
export function readPidFile(home: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(home, 'supervisor.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** True when a process with this pid exists (signal 0 probes without signalling; EPERM still means alive). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A listen address as a URL a client can connect to: the wildcard binds (`0.0.0.0`, `::`) become the
 * loopback address of the same family. Pure.
 */
export function connectableUrl(url: string): string {
  const u = new URL(url);
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  else if (u.hostname === '[::]') u.hostname = '[::1]';
  return u.toString().replace(/\/$/, '');
}
