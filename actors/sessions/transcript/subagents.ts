/**
 * Sub-agents of a Claude session (Task tool calls): each writes its own log next to the parent's, in
 * `<dir>/<session key>/subagents/agent-<id>.jsonl`. The mapping comes from each file's first entry (its
 * `agentId`, and the parent's tool call id under one of the spellings Claude has used); the status is
 * inferred from the file: empty → pending, a last assistant message that ended its turn → completed, an API
 * error → failed, else running.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { BadRequestError, NotFoundError } from '../../runtime/errors.ts';
import { parseClaudeLine, type LogEntry } from './logEntry.ts';
import type { SessionTranscripts } from './sessionTranscripts.ts';

export interface AgentMapping {
  agent_id: string;
  parent_tool_use_id: string;
}

const AGENT_FILE = /^agent-([\w.-]+)\.jsonl$/;

async function subagentDir(transcripts: SessionTranscripts, target: string): Promise<string | undefined> {
  const s = transcripts.resolve(target);
  const loc = await transcripts.locate(s);
  if (!loc || loc.family !== 'claude') return undefined;
  return join(dirname(loc.path), basename(loc.path, '.jsonl'), 'subagents');
}

function entriesOf(text: string): LogEntry[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(parseClaudeLine)
    .filter((e): e is LogEntry => e !== undefined);
}

function mappingOf(fileId: string, first: LogEntry | undefined): AgentMapping {
  const v = first?.value ?? {};
  const pick = (...keys: string[]): string | undefined => {
    for (const k of keys) if (typeof v[k] === 'string' && v[k] !== '') return v[k];
    return undefined;
  };
  return {
    agent_id: pick('agentId', 'agent_id') ?? fileId,
    parent_tool_use_id: pick('parent_tool_use_id', 'parentToolUseID', 'parentToolUseId') ?? '',
  };
}

/** Pending, running, completed or failed, from a sub-agent's entries. Pure. */
export function subagentStatus(entries: readonly LogEntry[]): string {
  const last = entries[entries.length - 1];
  if (!last) return 'pending';
  if (last.value.isApiErrorMessage === true) return 'failed';
  const stop = (last.value.message as { stop_reason?: unknown } | undefined)?.stop_reason;
  if (last.type === 'assistant' && typeof stop === 'string' && stop !== '' && stop !== 'tool_use')
    return 'completed';
  return 'running';
}

/** `GET /session/{id}/agents`. @throws NotFoundError for an unknown session. */
export async function sessionAgents(
  transcripts: SessionTranscripts,
  target: string,
): Promise<AgentMapping[]> {
  const dir = await subagentDir(transcripts, target);
  if (!dir) return [];
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => AGENT_FILE.test(n)).sort();
  } catch {
    return [];
  }
  const out: AgentMapping[] = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), 'utf8').catch(() => '');
    const nl = text.indexOf('\n');
    const first = parseClaudeLine(nl < 0 ? text : text.slice(0, nl));
    out.push(mappingOf(AGENT_FILE.exec(name)![1]!, first));
  }
  return out;
}

/**
 * `GET /session/{id}/agents/{agentId}`: the sub-agent's entries verbatim and its status.
 * @throws BadRequestError (an id that is not a file name), NotFoundError (unknown session or sub-agent).
 */
export async function sessionAgent(
  transcripts: SessionTranscripts,
  target: string,
  agentId: string,
): Promise<{ rawMessages: string[]; status: string }> {
  if (!/^[\w.-]+$/.test(agentId) || agentId.startsWith('.'))
    throw new BadRequestError(`agent id ${JSON.stringify(agentId)} is not a sub-agent id`);
  const dir = await subagentDir(transcripts, target);
  const missing = new NotFoundError(`sub-agent ${JSON.stringify(agentId)} not found in session ${target}`);
  if (!dir) throw missing;
  let text: string | undefined;
  const direct = await readFile(join(dir, `agent-${agentId}.jsonl`), 'utf8').catch(() => undefined);
  if (direct !== undefined) text = direct;
  else {
    // The id may be the agentId inside a file named otherwise.
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => AGENT_FILE.test(n))) {
      const t = await readFile(join(dir, name), 'utf8').catch(() => '');
      const nl = t.indexOf('\n');
      if (mappingOf('', parseClaudeLine(nl < 0 ? t : t.slice(0, nl))).agent_id === agentId) {
        text = t;
        break;
      }
    }
  }
  if (text === undefined) throw missing;
  const entries = entriesOf(text);
  return { rawMessages: entries.map((e) => e.raw), status: subagentStatus(entries) };
}
