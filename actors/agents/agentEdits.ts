/**
 * Edits of a city's agents (create, update, suspend/resume, remove): city.toml's `[[agent]]` tables are
 * rewritten through the one city.toml writer and each change is recorded as `agent.config_changed`; the
 * sessions get the new config, and an agent's suspension reaches its sessions.
 */
import { qualifiedName, type AgentTemplate } from '../../machines/agents/templates.ts';
import type { AgentConfig, ConfigWriter } from '../config/index.ts';
import { putPatch } from '../config/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../runtime/errors.ts';
import type { Logger } from '../runtime/logger.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import type { SessionService } from '../sessions/index.ts';
import type { AgentAction, AgentCreateInput, AgentUpdateInput } from './agentApi.ts';
import { knowsProvider } from './agentViews.ts';

/** The name rule of an agent's name and dir. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** What the edits use of the agents service they belong to. */
export interface AgentEditHost {
  readonly city: string;
  readonly sessions: SessionService;
  readonly log: LogRuntime;
  readonly logger: Logger;
  readonly writer: ConfigWriter;
  templates(): AgentTemplate[];
  /** Runs an awake pass. */
  poke(): void;
  /** Shows the agents as they are now to the inspection hub. */
  report(): void;
}

export class AgentEdits {
  constructor(private readonly host: AgentEditHost) {}

  async create(input: AgentCreateInput, actor: string): Promise<{ status: 'ok'; agent: string }> {
    invalidUnless(
      AGENT_NAME.test(input.name),
      'body.name',
      'expected letters, digits, ".", "_" or "-"',
      input.name,
    );
    if (input.dir !== undefined) {
      invalidUnless(AGENT_NAME.test(input.dir), 'body.dir', 'expected a rig name', input.dir);
    }
    invalidUnless(this.#knowsProvider(input.provider), 'body.provider', 'unknown provider', input.provider);
    const qualified = qualifiedName(input);
    if (this.host.templates().some((t) => t.qualified === qualified)) {
      throw new ConflictError(`agent ${qualified} already exists`);
    }
    const agent: AgentConfig = { name: input.name, provider: input.provider };
    if (input.dir) agent.dir = input.dir;
    if (input.scope) agent.scope = input.scope;
    await this.#edit(actor, 'created', qualified, agent, (tables) => [...tables, { ...agent }]);
    this.host.poke();
    return { status: 'ok', agent: qualified };
  }

  async update(name: string, input: AgentUpdateInput, actor: string): Promise<void> {
    const current = this.#configOf(name);
    if (input.provider !== undefined) {
      invalidUnless(this.#knowsProvider(input.provider), 'body.provider', 'unknown provider', input.provider);
    }
    const next: AgentConfig = { ...current };
    if (input.provider !== undefined) next.provider = input.provider;
    if (input.scope !== undefined) next.scope = input.scope;
    if (input.suspended !== undefined) next.suspended = input.suspended;
    const set: Record<string, unknown> = {};
    if (input.provider !== undefined) set.provider = input.provider;
    if (input.scope !== undefined) set.scope = input.scope;
    if (input.suspended !== undefined) set.suspended = input.suspended;
    await this.#edit(
      actor,
      'updated',
      name,
      next,
      (tables) => tables.map((t) => (isTable(name)(t) ? { ...t, ...set } : t)),
      set,
    );
    if (input.suspended !== undefined) await this.#applySuspension(name, input.suspended, actor);
    this.host.poke();
  }

  async remove(name: string, actor: string): Promise<void> {
    this.#configOf(name); // 404 for an unknown agent, before anything is written
    await this.#edit(actor, 'deleted', name, undefined, (tables) => tables.filter((t) => !isTable(name)(t)));
    for (const s of this.host.sessions.book.openSessions().filter((x) => x.template === name)) {
      await this.host.sessions.close(s.id, {}, { actor });
    }
  }

  async act(name: string, action: AgentAction, actor: string): Promise<void> {
    if (action === 'suspend' || action === 'resume') {
      await this.update(name, { suspended: action === 'suspend' }, actor);
      return;
    }
    throw new NotFoundError(`agent action ${JSON.stringify(action)} not found`);
  }

  /** Suspending an agent suspends its running sessions; resuming wakes those it suspended. */
  async #applySuspension(name: string, suspend: boolean, actor: string): Promise<void> {
    const sessions = this.host.sessions;
    for (const s of sessions.book.openSessions().filter((x) => x.template === name)) {
      try {
        if (suspend && s.state !== 'suspended') await sessions.suspend(s.id, { actor });
        else if (!suspend && s.state === 'suspended') await sessions.wake(s.id, { actor });
      } catch (err) {
        this.host.logger.warn({ err, city: this.host.city, session: s.id }, 'agent suspension not applied');
      }
    }
  }

  #configOf(name: string): AgentConfig {
    const found = this.host.sessions.config.agents.find((a) => qualifiedName(a) === name);
    if (!found) throw new NotFoundError(`agent ${JSON.stringify(name)} not found`);
    return found;
  }

  #knowsProvider(name: string): boolean {
    return knowsProvider(this.host.sessions.config, name);
  }

  /**
   * Rewrites city.toml's `[[agent]]` tables with `change` (on the raw tables, so keys this supervisor does
   * not model are kept), records it, and makes the new config the sessions'. An agent a pack defines is not
   * in those tables: its edit (`patch`, the fields set) becomes an agent patch of city.toml, which survives
   * pack updates (upstream's rule for suspending one); its removal is a ConflictError.
   */
  async #edit(
    actor: string,
    op: 'created' | 'updated' | 'deleted',
    agent: string,
    config: AgentConfig | undefined,
    change: (tables: Record<string, unknown>[]) => Record<string, unknown>[],
    patch?: Record<string, unknown>,
  ): Promise<void> {
    const { config: next } = await this.host.writer.write(this.host.log, (doc, current) => {
      const raw = Array.isArray(doc.agent) ? (doc.agent as Record<string, unknown>[]) : [];
      if (op !== 'created' && !raw.some(isTable(agent))) {
        if (!patch) {
          throw new ConflictError(
            `agent ${agent} is defined by a pack: patch it (PUT /patches/agents) instead of removing it`,
          );
        }
        const [dir, base] = agent.includes('/') ? agent.split('/') : [undefined, agent];
        putPatch(actor, 'agent', { name: base, ...(dir ? { dir } : {}), ...patch })(doc, current);
      } else {
        const tables = change(raw);
        if (tables.length > 0) doc.agent = tables;
        else delete doc.agent;
      }
      return {
        record: {
          type: 'agent.config_changed',
          actor,
          subject: agent,
          payload: { op, agent, ...(config ? { config: { ...config } } : {}) },
        },
        result: undefined,
      };
    });
    this.host.sessions.setConfig(next.city);
    this.host.report();
  }
}

/** True when a raw `[[agent]]` table is the agent `qualified` names. */
const isTable = (qualified: string) => (t: Record<string, unknown>) =>
  (typeof t.dir === 'string' && t.dir !== '' ? `${t.dir}/${String(t.name)}` : t.name) === qualified;

function invalidUnless(ok: boolean, location: string, message: string, value: unknown): void {
  if (ok) return;
  throw new ValidationError(`${location.replace('body.', '')}: ${message}`, 'invalid', {
    errors: [{ location, message, value }],
  });
}
