/**
 * An ACP session's conversation as the transcript readers see a log (LogEntry, Claude's shape): each prompt
 * a `user` entry, the agent's `session/update`s folded into entries as they come — message chunks joined
 * into one `assistant` text entry per run, thoughts as `thinking` blocks, a `tool_call` as a `tool_use`
 * block, its completion (`tool_call_update` completed/failed) as a `tool_result` block in a `user` entry,
 * and the history an agent replays on `session/load` (`user_message_chunk`, then the rest). The entries
 * form one chain (`acp-<run>-<n>` uuids), so the transcript route pages them as it pages a Claude log. Pure data.
 */
import { randomUUID } from 'node:crypto';
import type { ContentBlock, SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';
import type { LogEntry } from '../transcript/logEntry.ts';

/** Entries kept (the oldest dropped first): the transcript route's largest page. */
const MAX_ENTRIES = 5000;

type Block = Record<string, unknown>;

interface Entry {
  uuid: string;
  parentUuid: string | null;
  type: 'user' | 'assistant';
  timestamp: string;
  content: Block[];
  /** What the last block is, so a chunk of the same kind extends it. */
  open?: 'user_text' | 'text' | 'thinking';
}

const textOf = (c: ContentBlock): string =>
  c.type === 'text' ? c.text : c.type === 'resource_link' ? c.uri : `[${c.type}]`;

function toolText(content: ToolCallContent[] | null | undefined): string {
  return (content ?? [])
    .map((c) =>
      c.type === 'content'
        ? textOf(c.content)
        : c.type === 'diff'
          ? `diff ${c.path}`
          : `terminal ${c.terminalId}`,
    )
    .join('\n');
}

export class AcpConversation {
  private readonly entries: Entry[] = [];
  private count = 0;
  /** The last entry can still grow (a turn runs, or a replay goes on). */
  private growing = false;

  /** `prefix` makes the uuids of each run of a session its own (a stream never takes one for another's). */
  constructor(
    private readonly prefix: string = randomUUID().slice(0, 8),
    private readonly now: () => number = Date.now,
  ) {}

  /** A prompt the supervisor sent. */
  prompt(text: string): void {
    this.add('user', { type: 'text', text });
  }

  /** One `session/update`. */
  fold(update: SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'user_message_chunk':
        return this.chunk('user', 'user_text', textOf(update.content));
      case 'agent_message_chunk':
        return this.chunk('assistant', 'text', textOf(update.content));
      case 'agent_thought_chunk':
        return this.chunk('assistant', 'thinking', textOf(update.content));
      case 'tool_call':
        this.add('assistant', {
          type: 'tool_use',
          id: update.toolCallId,
          name: update.title,
          input: update.rawInput ?? {},
        });
        return;
      case 'tool_call_update':
        if (update.status !== 'completed' && update.status !== 'failed') return;
        this.add('user', {
          type: 'tool_result',
          tool_use_id: update.toolCallId,
          content: toolText(update.content) || update.status,
          ...(update.status === 'failed' ? { is_error: true } : {}),
        });
        return;
      default:
        return;
    }
  }

  /** The turn ended: the next chunk starts a new entry. */
  endTurn(): void {
    const last = this.entries.at(-1);
    if (last) delete last.open;
    this.growing = false;
  }

  /**
   * The conversation as log entries, oldest first (`raw` is each entry's JSON as of now); `complete` leaves
   * out the last entry while it can still grow (what a stream sends once and never again).
   */
  logEntries(opts: { complete?: boolean } = {}): LogEntry[] {
    const kept = opts.complete && this.growing ? this.entries.slice(0, -1) : this.entries;
    return kept.map((e) => {
      const value = {
        type: e.type,
        uuid: e.uuid,
        parentUuid: e.parentUuid,
        timestamp: e.timestamp,
        message: { role: e.type, content: e.content.map((b) => ({ ...b })) },
      };
      return {
        uuid: e.uuid,
        parentUuid: e.parentUuid,
        type: e.type,
        timestamp: e.timestamp,
        sidechain: false,
        value,
        raw: JSON.stringify(value),
      };
    });
  }

  private chunk(type: Entry['type'], kind: NonNullable<Entry['open']>, text: string): void {
    const last = this.entries.at(-1);
    const block = last?.content.at(-1);
    if (last && last.type === type && last.open === kind && block) {
      if (kind === 'thinking') block.thinking = `${String(block.thinking)}${text}`;
      else block.text = `${String(block.text)}${text}`;
      return;
    }
    this.add(type, kind === 'thinking' ? { type: 'thinking', thinking: text } : { type: 'text', text });
    this.entries.at(-1)!.open = kind;
  }

  private add(type: Entry['type'], block: Block): void {
    this.growing = true;
    const last = this.entries.at(-1);
    if (last) delete last.open;
    this.entries.push({
      uuid: `acp-${this.prefix}-${++this.count}`,
      parentUuid: last?.uuid ?? null,
      type,
      timestamp: new Date(this.now()).toISOString(),
      content: [block],
    });
    if (this.entries.length > MAX_ENTRIES) {
      this.entries.splice(0, this.entries.length - MAX_ENTRIES);
      this.entries[0]!.parentUuid = null;
    }
  }
}
