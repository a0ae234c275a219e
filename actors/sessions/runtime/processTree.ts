/**
 * Ending a session's whole process tree. An agent's children may leave its process group (a tool that calls
 * setsid) or stay in it after the agent is gone, so both are collected: the members of the root's group and
 * the descendants of the root, read from /proc (Linux; elsewhere only the group is signalled).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  zombie: boolean;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: fields resume after its last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  return { pid, ppid: Number(fields[1]), pgrp: Number(fields[2]), zombie: state === 'Z' || state === 'X' };
}

function allStats(): ProcStat[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const stats: ProcStat[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** Live pids of the tree under `root`: its process group and its descendants (root included when alive). */
export function processTree(root: number): number[] {
  const stats = procFs ? allStats() : undefined;
  if (!stats) return isAlive(root) ? [root] : [];
  const children = new Map<number, number[]>();
  for (const s of stats) {
    const list = children.get(s.ppid) ?? [];
    list.push(s.pid);
    children.set(s.ppid, list);
  }
  const found = new Set<number>();
  const walk = [root, ...stats.filter((s) => s.pgrp === root).map((s) => s.pid)];
  while (walk.length > 0) {
    const pid = walk.pop()!;
    if (found.has(pid)) continue;
    found.add(pid);
    walk.push(...(children.get(pid) ?? []));
  }
  const live = new Set(stats.filter((s) => !s.zombie).map((s) => s.pid));
  return [...found].filter((pid) => live.has(pid));
}

const procFs = (() => {
  try {
    readdirSync('/proc/self');
    return true;
  } catch {
    return false;
  }
})();

/** Alive and not a zombie (a zombie has ended; only its parent has not reaped it yet). */
export function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  if (stat) return !stat.zombie;
  if (procFs) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Gone already, or not ours to signal: either way nothing more to do for it.
  }
}

/**
 * SIGTERM to the group `pgid` (when given) and to every pid of `pids`, then SIGKILL to what is still alive
 * after `graceMs`. Resolves once none of them is alive (or after the SIGKILL's own short wait).
 */
export async function terminate(pids: number[], pgid: number | undefined, graceMs: number): Promise<void> {
  if (pgid !== undefined) signal(-pgid, 'SIGTERM');
  for (const pid of pids) signal(pid, 'SIGTERM');
  if (await allGone(pids, graceMs)) return;
  if (pgid !== undefined) signal(-pgid, 'SIGKILL');
  for (const pid of pids) if (isAlive(pid)) signal(pid, 'SIGKILL');
  await allGone(pids, 1000);
}

async function allGone(pids: number[], withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (!pids.some(isAlive)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
}
