/**
 * Codex rollout logs (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as transcript entries. Each line is
 * `{timestamp, type, payload}`; `session_meta` names the working directory, `response_item` carries the
 * conversation (`message` with a role and `input_text`/`output_text` blocks, `function_call`,
 * `function_call_output`, `reasoning`), `event_msg` and `turn_context` repeat or describe it and are not
 * shown. Entries get synthetic ids `codex-<n>` and a linear chain. Pure.
 */
import type { LogEntry } from './logEntry.ts';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;

/** The working directory a rollout's first line names, if it is a `session_meta`. */
export function codexCwd(firstLine: string): string | undefined {
  try {
    const v = obj(JSON.parse(firstLine));
    const cwd = v?.type === 'session_meta' ? obj(v.payload)?.cwd : undefined;
    return typeof cwd === 'string' ? cwd : undefined;
  } catch {
    return undefined;
  }
}

/** The Claude-shaped message of one response item, or undefined for items that show nothing. */
function converted(payload: Obj): { type: string; content: unknown[] } | undefined {
  switch (payload.type) {
    case 'message': {
      const role = payload.role === 'assistant' ? 'assistant' : payload.role === 'user' ? 'user' : undefined;
      if (!role || !Array.isArray(payload.content)) return undefined;
      const content = payload.content
        .map((b) => obj(b))
        .filter((b): b is Obj => b !== undefined && typeof b.text === 'string')
        .map((b) => ({ type: 'text', text: b.text }));
      return { type: role, content };
    }
    case 'function_call':
      return {
        type: 'assistant',
        content: [{ type: 'tool_use', id: payload.call_id, name: payload.name, input: payload.arguments }],
      };
    case 'function_call_output': {
      const out = obj(payload.output)?.content ?? payload.output;
      return {
        type: 'user',
        content: [{ type: 'tool_result', tool_use_id: payload.call_id, content: out }],
      };
    }
    case 'reasoning':
      return { type: 'assistant', content: [{ type: 'thinking' }] };
    default:
      return undefined;
  }
}

/** The entries of a whole rollout file's text. */
export function codexEntries(text: string): LogEntry[] {
  const entries: LogEntry[] = [];
  let parent: string | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let v: Obj | undefined;
    try {
      v = obj(JSON.parse(line));
    } catch {
      continue;
    }
    if (!v) continue;
    const payload = obj(v.payload);
    const message = v.type === 'response_item' && payload ? converted(payload) : undefined;
    const uuid = `codex-${entries.length + 1}`;
    const entry: LogEntry = {
      uuid,
      parentUuid: parent,
      type: message?.type ?? (typeof v.type === 'string' ? v.type : ''),
      sidechain: false,
      value: message ? { type: message.type, message: { role: message.type, content: message.content } } : v,
      raw: line,
    };
    if (typeof v.timestamp === 'string') entry.timestamp = v.timestamp;
    entries.push(entry);
    parent = uuid;
  }
  return entries;
}
