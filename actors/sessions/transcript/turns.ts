/**
 * A conversation entry as a display turn (upstream OutputTurn): the role is the entry's type, the text is the
 * string content, or its blocks joined by newlines (`text` as is, `tool_use` as `[Name]`, `tool_result` as
 * `[result] <text>` cut to 500 characters, `thinking` as `[thinking]`, redacted). Entries without text give no
 * turn. Pure.
 */
import type { LogEntry } from './logEntry.ts';

export interface OutputTurn {
  role: string;
  text: string;
  timestamp?: string;
}

const RESULT_CHARS = 500;

function messageOf(value: Record<string, unknown>): Record<string, unknown> | undefined {
  let m = value.message;
  // Some writers double-encode the message as a JSON string.
  if (typeof m === 'string') {
    try {
      m = JSON.parse(m);
    } catch {
      return { content: m };
    }
  }
  return typeof m === 'object' && m !== null ? (m as Record<string, unknown>) : undefined;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((b) => (typeof (b as { text?: unknown })?.text === 'string' ? (b as { text: string }).text : ''))
      .filter((s) => s !== '')
      .join('\n');
  return '';
}

function blockText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (typeof block !== 'object' || block === null) return '';
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? b.text : '';
    case 'tool_use':
      return `[${typeof b.name === 'string' ? b.name : 'tool'}]`;
    case 'tool_result': {
      const text = resultText(b.content);
      return `[result] ${text.length > RESULT_CHARS ? text.slice(0, RESULT_CHARS) : text}`;
    }
    case 'thinking':
    case 'redacted_thinking':
      return '[thinking]';
    default:
      return '';
  }
}

/** The text of an entry's message content ('' when it has none). */
export function entryText(entry: LogEntry): string {
  const message = messageOf(entry.value);
  const content = message?.content ?? entry.value.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map(blockText)
      .filter((s) => s !== '')
      .join('\n');
  return '';
}

/** RFC 3339 of a log timestamp (kept as written when it does not parse). */
export function rfc3339(ts: string | undefined): string | undefined {
  if (ts === undefined) return undefined;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? ts : new Date(ms).toISOString();
}

/** The turn an entry shows, or undefined when it has no text. */
export function turnOf(entry: LogEntry): OutputTurn | undefined {
  const text = entryText(entry);
  if (text === '') return undefined;
  const timestamp = rfc3339(entry.timestamp);
  return timestamp === undefined ? { role: entry.type, text } : { role: entry.type, text, timestamp };
}
