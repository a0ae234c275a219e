import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectableUrl, pidAlive, readPidFile, readSupervisorRecord } from './home.ts';

/** A supervisor process found through `$GC_HOME`: its pid and, once it has started listening, its URL. */
export interface SupervisorProc {
  pid: number;
  url: string | undefined;
}

/** On Linux, a process's command line; undefined where /proc is not available. */
function cmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
}

/** True when the pid is a zombie (exited, not yet reaped): gone for every purpose of ours. Linux only. */
function zombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** True when the pid is a live process that is not a zombie. */
export const running = (pid: number): boolean => pidAlive(pid) && !zombie(pid);

/**
 * Finds the running supervisor of `home`: the pid of `gc supervisor start` (`supervisor.pid`), else the pid
 * the supervisor recorded itself (`supervisor.json`, also written by a foreground `gc supervisor run`). A pid
 * that is gone, or (where /proc tells) is some other program that reused the number, is not a supervisor, so
 * `stop` never signals a stranger. Reads files only.
 */
export function findSupervisor(home: string): SupervisorProc | undefined {
  const record = readSupervisorRecord(home);
  for (const pid of [readPidFile(home), record?.pid]) {
    if (pid === undefined || !running(pid)) continue;
    const cmd = cmdline(pid);
    if (cmd !== undefined && !/supervisor|gc\.js|node/.test(cmd)) continue;
    return { pid, url: record && record.pid === pid ? connectableUrl(record.url) : undefined };
  }
  return undefined;
}

/** Removes `supervisor.pid` (a stale one, or after a stop). */
export function removePidFile(home: string): void {
  rmSync(join(home, 'supervisor.pid'), { force: true });
}

/** Waits until the pid has exited; resolves false when `timeoutMs` passes first. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (running(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

/** True when `GET <url>/health` answers 2xx within a second. */
export async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}
