/**
 * Whether the agent is in a turn, from the end of its Claude log (upstream's rule): walking back from the last
 * entry, the first that decides wins: `system/turn_duration` → idle; an assistant message whose `stop_reason`
 * is `tool_use` → in-turn, any other stop reason → idle, none yet → unknown; a user message → in-turn, unless
 * it is `[Request interrupted by user]` → idle.
 */
import { open } from 'node:fs/promises';
import { parseClaudeLine, type LogEntry } from './logEntry.ts';
import { entryText } from './turns.ts';

export type Activity = 'idle' | 'in-turn';

/** Bytes of the log's end that the decision reads. */
export const ACTIVITY_WINDOW = 64 * 1024;

/** The activity the entries show (newest last); undefined when nothing decides. Pure. */
export function activityOf(entries: readonly LogEntry[]): Activity | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.sidechain) continue;
    if (e.type === 'system' && e.subtype === 'turn_duration') return 'idle';
    if (e.type === 'assistant') {
      const message = e.value.message as { stop_reason?: unknown } | undefined;
      const stop = typeof message === 'object' && message !== null ? message.stop_reason : undefined;
      if (stop === 'tool_use') return 'in-turn';
      if (typeof stop === 'string' && stop !== '') return 'idle';
      return undefined;
    }
    if (e.type === 'user') return entryText(e).includes('[Request interrupted by user') ? 'idle' : 'in-turn';
  }
  return undefined;
}

/** The activity of the Claude log at `path` (its last 64 KiB); undefined when unknown or unreadable. */
export async function logActivity(path: string): Promise<Activity | undefined> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size } = await fh.stat();
    const from = Math.max(0, size - ACTIVITY_WINDOW);
    const buf = Buffer.alloc(size - from);
    await fh.read(buf, 0, buf.length, from);
    const lines = buf.toString('utf8').split('\n');
    if (from > 0) lines.shift(); // a partial first line
    const entries = lines.map(parseClaudeLine).filter((e): e is LogEntry => e !== undefined);
    return activityOf(entries);
  } finally {
    await fh.close();
  }
}
