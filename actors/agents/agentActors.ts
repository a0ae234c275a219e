import { transition, type AnyMachineSnapshot } from 'xstate';
import type { AgentView } from './agentApi.ts';
import type { ActorObserver, ObservedActor } from '../runtime/actorObserver.ts';
import {
  agentEventBetween,
  agentMachine,
  isAgentState,
  type AgentContext,
  type AgentFacts,
  type AgentMachineEvent,
  type AgentState,
} from '../../machines/agents/agent.machine.ts';

/** What the live view and the inspector show of an agent besides its state. Pure. */
function factsOf(view: AgentView): AgentFacts {
  return {
    running: view.running,
    pool: view.pool,
    rig: view.rig,
    provider: view.provider,
    active_bead: view.active_bead,
    session: view.session?.name,
  };
}

const FACT_KEYS = ['running', 'pool', 'rig', 'provider', 'active_bead', 'session'] as const;
const sameFacts = (a: AgentFacts, b: AgentFacts): boolean => FACT_KEYS.every((k) => a[k] === b[k]);

/** One agent as the hub sees it: the hub keys actors by object, so an agent keeps one, snapshots change. */
interface AgentActor {
  readonly machine: ObservedActor['machine'];
  snapshot: AnyMachineSnapshot;
}

/**
 * A city's agents as machine actors of the agent machine, for the inspection hub (the live view and the
 * XState inspector). The agent service hands it the views it computes (one per singleton, pool slot or
 * pool instance) after each awake pass and each edit; an agent not seen before is created in its state, a
 * changed one moves by the event its old and new states name, one no longer listed is removed. An
 * unchanged agent costs a comparison of six facts: nothing is reported.
 */
export class AgentActorReporter {
  readonly #actors = new Map<string, AgentActor>();

  constructor(
    private readonly city: string,
    private readonly observer: ActorObserver,
  ) {}

  refresh(views: readonly AgentView[]): void {
    const listed = new Set<string>();
    for (const view of views) {
      if (!isAgentState(view.state)) continue;
      listed.add(view.name);
      this.#report(view.name, view.state, factsOf(view));
    }
    for (const name of [...this.#actors.keys()]) if (!listed.has(name)) this.#remove(name);
  }

  /** Removes every agent still reported (the city stops: its agent actors stop with it). */
  stop(): void {
    for (const name of [...this.#actors.keys()]) this.#remove(name);
  }

  #report(name: string, state: AgentState, facts: AgentFacts): void {
    const actor = this.#actors.get(name);
    if (!actor) {
      const context: AgentContext = { city: this.city, name, ...facts };
      const created: AgentActor = {
        machine: agentMachine,
        snapshot: agentMachine.resolveState({ value: state, context }),
      };
      this.#actors.set(name, created);
      this.observer.created(created);
      return;
    }
    const from = actor.snapshot.value as AgentState;
    if (from === state && sameFacts(actor.snapshot.context as AgentContext, facts)) return;
    this.#send(actor, { type: agentEventBetween(from, state), facts });
  }

  #remove(name: string): void {
    const actor = this.#actors.get(name);
    if (!actor) return;
    this.#actors.delete(name);
    this.#send(actor, { type: 'REMOVE' });
  }

  #send(actor: AgentActor, event: AgentMachineEvent): void {
    const [next] = transition(agentMachine, actor.snapshot as never, event);
    actor.snapshot = next;
    this.observer.changed(actor, event);
  }
}
