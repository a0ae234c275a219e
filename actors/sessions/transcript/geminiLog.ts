/**
 * Gemini CLI chat files (`~/.gemini/tmp/<project hash>/chats/session-*.json`) as transcript entries: one JSON
 * object `{sessionId, messages: [{id, timestamp, type, content, thoughts?, toolCalls?, model?}]}` where `type`
 * is `user`, `gemini` (the model), `info` or `error`. Entries get synthetic ids `gemini-<n>` and a linear
 * chain; `raw` is each message object as written. Pure.
 */
import type { LogEntry } from './logEntry.ts';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p) => (typeof obj(p)?.text === 'string' ? (obj(p)!.text as string) : ''))
      .filter((s) => s !== '')
      .join('\n');
  return '';
}

/** The entries of a chat file's text; none when it is not a chat object. */
export function geminiEntries(text: string): LogEntry[] {
  let doc: Obj | undefined;
  try {
    doc = obj(JSON.parse(text));
  } catch {
    return [];
  }
  const messages = Array.isArray(doc?.messages) ? doc.messages : [];
  const entries: LogEntry[] = [];
  let parent: string | null = null;
  for (const m of messages) {
    const msg = obj(m);
    if (!msg) continue;
    const type = msg.type === 'gemini' ? 'assistant' : msg.type === 'user' ? 'user' : 'system';
    const blocks: unknown[] = [];
    if (Array.isArray(msg.thoughts) && msg.thoughts.length > 0) blocks.push({ type: 'thinking' });
    const text = contentText(msg.content);
    if (text !== '') blocks.push({ type: 'text', text });
    if (Array.isArray(msg.toolCalls))
      for (const call of msg.toolCalls) {
        const c = obj(call);
        blocks.push({ type: 'tool_use', id: c?.id, name: c?.name ?? c?.displayName ?? 'tool' });
      }
    const uuid = `gemini-${entries.length + 1}`;
    const entry: LogEntry = {
      uuid,
      parentUuid: parent,
      type,
      sidechain: false,
      value: { type, message: { role: type, content: blocks } },
      raw: JSON.stringify(msg),
    };
    if (typeof msg.timestamp === 'string') entry.timestamp = msg.timestamp;
    entries.push(entry);
    parent = uuid;
  }
  return entries;
}
