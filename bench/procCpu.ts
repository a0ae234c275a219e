import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system, ms) process `pid` has used so far, from /proc (Linux; clock ticks of 10 ms);
 * undefined where there is no such file (another OS, a process gone).
 */
export function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
