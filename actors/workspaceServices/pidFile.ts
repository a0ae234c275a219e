import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A service's pid file, `<state_root>/run/service.pid`: the process and when it started (field 22 of
 * /proc/<pid>/stat), so a supervisor that was killed without stopping its services can recognise, at its
 * next start, the process it left behind (and never a later process that got the same pid).
 */
interface PidRecord {
  pid: number;
  start: string | null;
}

const fileOf = (stateRoot: string): string => join(stateRoot, 'run', 'service.pid');

/** The start time of process `pid` (clock ticks since boot), or null where /proc cannot say. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Records the running process of a service. Effects: writes the pid file. */
export async function writePidFile(stateRoot: string, pid: number): Promise<void> {
  const record: PidRecord = { pid, start: startTimeOf(pid) };
  await writeFile(fileOf(stateRoot), JSON.stringify(record));
}

/** Forgets the process of a service that was stopped. Effects: removes the pid file. */
export async function removePidFile(stateRoot: string): Promise<void> {
  await rm(fileOf(stateRoot), { force: true });
}

/**
 * Kills (SIGKILL, its whole process group) the process a previous supervisor left running for this
 * service, when the pid file names it and it is still that same process. Resolves with its pid, or
 * undefined when there was none. Effects: may signal a process group; removes the pid file.
 */
export async function killLeftover(stateRoot: string): Promise<number | undefined> {
  let record: PidRecord;
  try {
    record = JSON.parse(await readFile(fileOf(stateRoot), 'utf8')) as PidRecord;
  } catch {
    return undefined;
  }
  await removePidFile(stateRoot);
  if (record.start === null || startTimeOf(record.pid) !== record.start) return undefined;
  try {
    process.kill(-record.pid, 'SIGKILL');
    return record.pid;
  } catch {
    return undefined;
  }
}
