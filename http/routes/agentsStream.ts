import type { AgentApi, AgentOutput, OutputTurn } from '../../actors/agents/index.ts';
import type { SseWriter } from '../sse/writer.ts';

/** How often a stream asks the agent service for new output, unless an app sets its own. */
export const AGENT_OUTPUT_POLL_MS = 1000;

const pollIntervals = new WeakMap<object, number>();

/** Sets how often the agent output streams of the app over `deps` poll (tests and benches tighten it). */
export function setAgentOutputPollMs(deps: object, ms: number): void {
  pollIntervals.set(deps, ms);
}

/** The poll interval of the agent output streams of the app over `deps`. */
export const agentOutputPollMs = (deps: object): number => pollIntervals.get(deps) ?? AGENT_OUTPUT_POLL_MS;

/**
 * What a stream has sent so far. For a conversation: the absolute position (1-based, in the whole log) of
 * the last turn sent and its timestamp, so a log that was replaced (a new session's) is told from one that
 * grew. For a screen (`format: text`): its last text, sent again only when it changes.
 */
export type Sent =
  | { format: 'conversation'; index: number; timestamp: string | undefined }
  | { format: 'text'; text: string }
  | undefined;

/** One frame to write: the turns, and the `id:` (a conversation's last absolute turn position). */
export interface TurnFrame {
  turns: OutputTurn[];
  id: string | undefined;
}

/** The next step of a stream given one read of the output. */
export type Step =
  | { kind: 'frame'; frame: TurnFrame | undefined; sent: Sent }
  /** The window does not reach back to the last turn sent: read the whole conversation and step again. */
  | { kind: 'gap' };

const isConversation = (output: AgentOutput): boolean => output.format === 'conversation';

/**
 * What to send after `sent`, given a fresh read of the agent's output. Turns are told apart by their
 * absolute position in the conversation (the page's place from `pagination.total_message_count`, else the
 * page is the whole conversation) and checked by timestamp: a conversation that is shorter than what was
 * sent, or whose turn at the last sent position has another timestamp, was replaced, and is sent from its
 * start. A screen is sent whole when it changed. This is a pure function.
 */
export function stepTurns(output: AgentOutput, sent: Sent): Step {
  const turns = output.turns ?? [];
  if (!isConversation(output)) {
    const text = turns.map((t) => t.text).join('\n');
    if (sent?.format === 'text' && sent.text === text) return { kind: 'frame', frame: undefined, sent };
    return {
      kind: 'frame',
      frame: turns.length > 0 ? { turns, id: undefined } : undefined,
      sent: { format: 'text', text },
    };
  }
  const total = output.pagination?.total_message_count ?? turns.length;
  const base = Math.max(0, total - turns.length);
  const all = (): Step => frameOf(turns, base, 0);
  if (sent?.format !== 'conversation') return all();
  if (sent.index > base + turns.length) return all();
  if (sent.index > base && sent.timestamp !== undefined) {
    const atSent = turns[sent.index - base - 1];
    if (atSent?.timestamp !== sent.timestamp) return all();
  }
  if (sent.index < base) return { kind: 'gap' };
  return frameOf(turns, base, sent.index - base, sent);
}

function frameOf(turns: OutputTurn[], base: number, from: number, unchanged?: Sent): Step {
  const fresh = turns.slice(from);
  if (fresh.length === 0) {
    return {
      kind: 'frame',
      frame: undefined,
      sent: unchanged ?? { format: 'conversation', index: base, timestamp: undefined },
    };
  }
  const index = base + turns.length;
  return {
    kind: 'frame',
    frame: { turns: fresh, id: String(index) },
    sent: { format: 'conversation', index, timestamp: turns.at(-1)?.timestamp },
  };
}

/** A stream in progress: where it is and how to reach the agent. */
export interface AgentStreamOptions {
  api: AgentApi;
  /** The qualified name. */
  name: string;
  writer: SseWriter;
  pollMs: number;
  /** A failure to read the output (the stream then ends, and the client reconnects). */
  onError: (err: unknown) => void;
}

/**
 * Writes `event: turn` frames (an AgentOutputResponse carrying only new turns) for one agent until the
 * writer closes: `first` (the read made during setup) from `sent`, then a read every `pollMs`. A failed
 * read ends the stream cleanly, so the client reconnects with its Last-Event-ID (and gets a 404 if the agent
 * is gone). Never throws.
 *
 * Effects: one timer at a time, released when the writer closes.
 */
export async function runAgentStream(o: AgentStreamOptions, first: AgentOutput, sent: Sent): Promise<void> {
  let output = first;
  let position = sent;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  o.writer.onClose(() => {
    clearTimeout(timer);
    wake?.();
  });
  try {
    for (;;) {
      let step = stepTurns(output, position);
      if (step.kind === 'gap') {
        const whole = await o.api.output(o.name, { tail: 0 });
        step = stepTurns(whole, position);
        // Still short of the last turn sent: every turn there is is newer than it.
        if (step.kind === 'gap') step = stepTurns(whole, undefined);
      }
      if (step.kind === 'frame') {
        position = step.sent;
        if (step.frame) {
          const data = { agent: output.agent, format: output.format, turns: step.frame.turns };
          o.writer.send('turn', JSON.stringify(data), step.frame.id);
        }
      }
      await o.writer.ready();
      if (o.writer.closed) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, o.pollMs);
      });
      if (o.writer.closed) return;
      output = await o.api.output(o.name, {});
    }
  } catch (err) {
    o.onError(err);
  } finally {
    o.writer.close('ended');
  }
}
