/**
 * Which agent sessions should exist: the awake set, as a pure function of the templates, the named
 * sessions, the open sessions each template has, and each pool's demand. It answers the sessions to create
 * (a template and an instance name) and the ones to close (surplus pool instances that are not busy).
 * A session started by hand (origin manual) is the user's: never a pool member, so never surplus.
 * Starting, restarting and quarantine stay the session reconciler's. Pure.
 */
import { blockedBy, desiredCount, instanceName, slotOf, type AgentTemplate } from './templates.ts';
import type { AgentState } from './agent.machine.ts';

export interface AgentSessionFacts {
  id: string;
  /** The template it runs. */
  template: string;
  /** Its instance name (the session's alias). */
  instance: string;
  /** Suspended, quarantined, … : open but not counted as busy. */
  state: string;
  running: boolean;
  /** It holds work (an in-progress bead): never closed to shrink a pool. */
  busy: boolean;
  /** Started by hand (`session_origin=manual`): kept whatever the pool wants, and not counted in it. */
  manual?: boolean;
}

export interface NamedSessionFacts {
  name: string;
  template: string;
  mode: 'always' | 'on_demand';
}

export type AwakeAction =
  | { kind: 'create'; template: string; instance: string; origin: 'ephemeral' | 'named' }
  | { kind: 'close'; id: string; reason: string };

export interface AwakeInput {
  templates: readonly AgentTemplate[];
  named: readonly NamedSessionFacts[];
  sessions: readonly AgentSessionFacts[];
  /** A pool's demand from its scale check (absent: its minimum). */
  demand: ReadonlyMap<string, number>;
}

export function awakeSet({ templates, named, sessions, demand }: AwakeInput): AwakeAction[] {
  const actions: AwakeAction[] = [];
  const byTemplate = new Map<string, AgentSessionFacts[]>();
  for (const s of sessions) byTemplate.set(s.template, [...(byTemplate.get(s.template) ?? []), s]);
  const namedInstances = new Set(named.map((n) => n.name));
  for (const t of templates) {
    const all = (byTemplate.get(t.qualified) ?? []).filter((s) => !namedInstances.has(s.instance));
    const own = all.filter((s) => s.manual !== true);
    const want = desiredCount(t, demand.get(t.qualified));
    // A manual session's name stays its own: a pool slot never reuses it.
    const taken = new Set(all.map((s) => s.instance));
    let missing = want - own.length;
    for (let slot = 1; missing > 0 && (t.max === undefined || slot <= Math.max(t.max, want)); slot++) {
      const instance = instanceName(t, slot);
      if (taken.has(instance)) continue;
      actions.push({ kind: 'create', template: t.qualified, instance, origin: 'ephemeral' });
      taken.add(instance);
      missing--;
    }
    if (own.length > want && !t.suspended) {
      // Shrink from the highest slot down; never a session that holds work.
      const surplus = [...own]
        .filter((s) => !s.busy)
        .sort(
          (a, b) =>
            slotOf(t, b.instance) - slotOf(t, a.instance) ||
            b.instance.localeCompare(a.instance, undefined, { numeric: true }),
        )
        .slice(0, own.length - want);
      for (const s of surplus) actions.push({ kind: 'close', id: s.id, reason: 'pool-shrink' });
    }
  }
  for (const n of named) {
    if (n.mode !== 'always') continue;
    if (!templates.some((t) => t.qualified === n.template && !t.suspended)) continue;
    if (sessions.some((s) => s.instance === n.name)) continue;
    actions.push({ kind: 'create', template: n.template, instance: n.name, origin: 'named' });
  }
  return actions;
}

/** Session ids that must not start yet because their template waits on a dependency (start waves). */
export function waitingOnDependencies(
  templates: readonly AgentTemplate[],
  sessions: readonly AgentSessionFacts[],
): Set<string> {
  const running = new Set(sessions.filter((s) => s.running).map((s) => s.template));
  const waiting = new Set<string>();
  for (const t of templates) {
    if (blockedBy(t, running).length === 0) continue;
    for (const s of sessions) if (s.template === t.qualified && !s.running) waiting.add(s.id);
  }
  return waiting;
}

/** Upstream's agent state rule. Pure. */
export function agentState(a: {
  suspended: boolean;
  quarantined: boolean;
  running: boolean;
  activeBead: boolean;
  lastActivity: number | undefined;
  now: number;
}): AgentState {
  if (a.suspended) return 'suspended';
  if (a.quarantined) return 'quarantined';
  if (!a.running) return 'stopped';
  if (!a.activeBead) return 'idle';
  return a.lastActivity !== undefined && a.now - a.lastActivity <= 10 * 60_000 ? 'working' : 'waiting';
}
