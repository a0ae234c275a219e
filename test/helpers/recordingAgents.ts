import type {
  AgentAction,
  AgentApi,
  AgentCreateInput,
  AgentListQuery,
  AgentOutput,
  AgentPage,
  AgentUpdateInput,
  AgentView,
  OutputTurn,
} from '../../actors/agents/agentApi.ts';
import { NotFoundError } from '../../actors/runtime/errors.ts';

/**
 * A small AgentApi for tests of the agent routes and of `gc agent`: it records every call and answers from
 * canned views and outputs, or throws `fail` when it is set. It is not the agent service.
 */

export const MAYOR: AgentView = {
  name: 'mayor',
  running: true,
  suspended: false,
  state: 'idle',
  available: true,
  provider: 'mock',
  session: { name: 'alpha-mayor', attached: false, last_activity: '2026-01-02T03:04:05Z' },
  context_pct: 12,
};

export const WORKER: AgentView = {
  name: 'rig1/worker',
  running: false,
  suspended: true,
  state: 'suspended',
  available: false,
  unavailable_reason: 'suspended',
  provider: 'mock',
  rig: 'rig1',
};

export const turn = (n: number, role = n % 2 ? 'user' : 'assistant'): OutputTurn => ({
  role,
  text: `turn ${n}`,
  timestamp: `2026-01-02T03:04:${String(n).padStart(2, '0')}Z`,
});

export interface Call {
  method: keyof AgentApi;
  args: unknown[];
}

/** An AgentApi that records its calls and answers canned values, or throws `fail` when it is set. */
export class RecordingAgents implements AgentApi {
  index = 7;
  calls: Call[] = [];
  fail: Error | undefined;
  views = new Map<string, AgentView>([
    [MAYOR.name, MAYOR],
    [WORKER.name, WORKER],
  ]);
  /** The output of each agent; none: a 404 as upstream's for an agent without log or session. */
  outputs = new Map<string, AgentOutput>();
  #waiters = new Set<() => void>();

  #record(method: keyof AgentApi, ...args: unknown[]): void {
    this.calls.push({ method, args });
    if (this.fail) throw this.fail;
  }
  #view(name: string): AgentView {
    const view = this.views.get(name);
    if (!view) throw new NotFoundError(`agent not found: ${name}`);
    return view;
  }

  /** Moves the index on and wakes the blocking queries. */
  bump(): void {
    this.index += 1;
    for (const wake of this.#waiters) wake();
  }

  waitForIndex(index: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    this.calls.push({ method: 'waitForIndex', args: [index, timeoutMs] });
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.index <= index && !signal?.aborted) return;
        this.#waiters.delete(check);
        resolve(this.index > index);
      };
      this.#waiters.add(check);
      signal?.addEventListener('abort', check, { once: true });
      check();
    });
  }
  async list(query: AgentListQuery): Promise<AgentPage> {
    this.#record('list', query);
    const items = [...this.views.values()];
    return { items, total: items.length };
  }
  async get(name: string, options?: { peek?: boolean }): Promise<AgentView> {
    this.#record('get', name, options);
    const view = this.#view(name);
    return options?.peek ? { ...view, last_output: 'echo: hi' } : view;
  }
  async create(input: AgentCreateInput, actor: string): Promise<{ status: 'ok'; agent: string }> {
    this.#record('create', input, actor);
    return { status: 'ok', agent: input.dir ? `${input.dir}/${input.name}` : input.name };
  }
  async update(name: string, input: AgentUpdateInput, actor: string): Promise<void> {
    this.#record('update', name, input, actor);
    this.#view(name);
  }
  async remove(name: string, actor: string): Promise<void> {
    this.#record('remove', name, actor);
    this.#view(name);
  }
  async act(name: string, action: AgentAction, actor: string): Promise<void> {
    this.#record('act', name, action, actor);
    this.#view(name);
  }
  async output(name: string, options: { tail?: number; before?: string }): Promise<AgentOutput> {
    this.#record('output', name, options);
    this.#view(name);
    const output = this.outputs.get(name);
    if (!output) throw new NotFoundError(`agent ${name} has no output`);
    return structuredClone(output);
  }
}

/** A conversation of `turns`; with `total`, a page of the latest turns of a longer one. */
export const conversation = (agent: string, turns: OutputTurn[], total?: number): AgentOutput => ({
  agent,
  format: 'conversation',
  turns,
  ...(total === undefined
    ? {}
    : {
        pagination: {
          has_older_messages: total > turns.length,
          total_message_count: total,
          returned_message_count: turns.length,
          total_compactions: 1,
        },
      }),
});
