import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';

/** Shared pieces of the fault suite: a seeded random source, raw log reading, and small predicates. */

/** A seeded PRNG (mulberry32): the same seed gives the same fault schedule. */
export interface Rng {
  (): number;
  /** An integer in [lo, hi). */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  /** A child generator with its own stream (one per concurrent worker). */
  fork(): Rng;
}

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (() => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  }) as Rng;
  next.int = (lo, hi) => lo + Math.floor(next() * (hi - lo));
  next.pick = (items) => items[Math.floor(next() * items.length)]!;
  next.fork = () => rng(Math.floor(next() * 2 ** 32));
  return next;
}

/**
 * The seed of this run: `GC_FAULT_SEED` when set (to replay a failure), else a fresh one. Printed as a
 * comment so any failing run can be replayed.
 */
export function faultSeed(t: Test): number {
  const seed = process.env.GC_FAULT_SEED
    ? Number(process.env.GC_FAULT_SEED)
    : Math.floor(Math.random() * 2 ** 31);
  t.comment(`seed ${seed} (replay with GC_FAULT_SEED=${seed})`);
  return seed;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const isTerminal = (type: string): boolean =>
  type === 'request.failed' || type.startsWith('request.result.');

export const requestIdOf = (e: JournalEvent): string | undefined =>
  (e.payload as { request_id?: unknown } | undefined)?.request_id as string | undefined;

/** A JSONL log as another process left it: the complete (newline-terminated) lines, and a torn tail if any. */
export interface RawLog {
  events: JournalEvent[];
  /** Bytes after the last newline (an interrupted write the next open truncates). */
  tornTail: string;
  /** Complete lines that are not JSON (must never happen). */
  corrupt: string[];
}

/** Reads a JSONL log written by another process without repairing it. */
export function readRawLog(file: string): RawLog {
  const out: RawLog = { events: [], tornTail: '', corrupt: [] };
  if (!existsSync(file)) return out;
  const text = readFileSync(file, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  out.tornTail = text.slice(end);
  for (const line of text.slice(0, end).split('\n')) {
    if (line === '') continue;
    try {
      out.events.push(JSON.parse(line) as JournalEvent);
    } catch {
      out.corrupt.push(line);
    }
  }
  return out;
}

/** Every file-journal log under a supervisor: `$GC_HOME/events.jsonl` and `<city>/.gc/events.jsonl`. */
export function logFiles(gcHome: string, citiesDir: string): Map<string, string> {
  const files = new Map<string, string>([['__supervisor__', join(gcHome, 'events.jsonl')]]);
  for (const entry of readdirSync(citiesDir, { withFileTypes: true })) {
    const file = join(citiesDir, entry.name, '.gc', 'events.jsonl');
    if (entry.isDirectory() && existsSync(file)) files.set(entry.name, file);
  }
  return files;
}

/** The seqs of `events` are exactly 1..n in order: nothing lost, duplicated or renumbered. */
export const isGapFree = (seqs: readonly number[], from = 1): boolean => seqs.every((s, i) => s === from + i);

/** A Problem Details answer: problem+json with numeric status, a title and a detail. */
export function isProblem(
  status: number,
  contentType: string | null | undefined,
  body: unknown,
): body is { status: number; title: string; detail: string } {
  const b = body as { status?: unknown; title?: unknown; detail?: unknown } | undefined;
  return (
    typeof contentType === 'string' &&
    contentType.startsWith('application/problem+json') &&
    typeof b === 'object' &&
    b !== null &&
    b.status === status &&
    typeof b.title === 'string' &&
    typeof b.detail === 'string'
  );
}
