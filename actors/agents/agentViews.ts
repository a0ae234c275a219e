/**
 * Agents as the API shows them (upstream AgentResponse): one view per instance, from the templates, the
 * open sessions and the runtime as last seen. Reads only: no runtime call, no write.
 */
import { agentState } from '../../machines/agents/awake.ts';
import { instanceName, type AgentTemplate } from '../../machines/agents/templates.ts';
import type { BeadModel } from '../../machines/beads/model.ts';
import type { SeenRuntime } from '../../machines/sessions/plan.ts';
import type { SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import type { CityConfig } from '../config/index.ts';
import { builtinPresets } from '../sessions/index.ts';
import type { AgentView } from './agentApi.ts';

/** An in-progress bead assigned to the session (by instance name or id): its work. */
export function activeBead(model: Readonly<BeadModel>, s: SessionRecord): string | undefined {
  for (const who of [s.alias, s.id, s.sessionName]) {
    if (!who) continue;
    for (const id of model.indexes.byAssignee.open.get(who) ?? []) {
      if (model.beads.get(id)?.bead.status === 'in_progress') return id;
    }
  }
  return undefined;
}

/** A builtin provider, or one the city defines (`[providers.<name>]`). */
export function knowsProvider(config: CityConfig, name: string): boolean {
  return name in builtinPresets() || Object.hasOwn(config.providers ?? {}, name);
}

/** What the views are built from. */
export interface AgentViewInputs {
  templates: readonly AgentTemplate[];
  open: readonly SessionRecord[];
  seen: ReadonlyMap<string, SeenRuntime>;
  model: Readonly<BeadModel>;
  config: CityConfig;
  now: number;
}

/** One view per instance: a singleton's one, a bounded pool's slots, an unbounded pool's sessions. */
export function agentViews(inputs: AgentViewInputs): AgentView[] {
  const { templates, open, seen } = inputs;
  const views: AgentView[] = [];
  for (const t of templates) {
    const mine = open.filter((s) => s.template === t.qualified);
    const instances = !t.pool
      ? [t.qualified]
      : t.max !== undefined
        ? Array.from({ length: t.max }, (_, i) => instanceName(t, i + 1))
        : [...new Set(mine.map((s) => s.alias))].filter(Boolean).sort();
    for (const name of instances) {
      const s = mine.find((x) => x.alias === name) ?? (t.pool ? undefined : mine[0]);
      views.push(agentView(inputs, t, name, s, s ? seen.get(s.sessionName) : undefined));
    }
  }
  return views;
}

function agentView(
  { model, config, now }: AgentViewInputs,
  t: AgentTemplate,
  name: string,
  s: SessionRecord | undefined,
  rt: SeenRuntime | undefined,
): AgentView {
  // Running means started and ready (active), not a runtime still showing its start-up.
  const running =
    s?.state === 'active' && rt?.running === true && (rt.token === undefined || rt.token === s.instanceToken);
  const suspended = t.suspended || s?.state === 'suspended';
  const active = s ? activeBead(model, s) : undefined;
  const provider = t.provider ?? config.provider;
  const presetKnown =
    t.startCommand !== undefined || (provider !== undefined && knowsProvider(config, provider));
  const view: AgentView = {
    name,
    running,
    suspended,
    state: agentState({
      suspended,
      quarantined: s?.state === 'quarantined',
      running,
      activeBead: active !== undefined,
      lastActivity: rt && rt.lastActivity > 0 ? rt.lastActivity : undefined,
      now,
    }),
    available: !suspended && presetKnown,
    display_name: name,
  };
  if (!view.available)
    view.unavailable_reason = suspended ? 'suspended' : `provider ${provider ?? '(none)'} is not known`;
  if (provider) view.provider = provider;
  if (t.dir) view.rig = t.dir;
  if (t.pool) view.pool = t.qualified;
  if (t.description) view.description = t.description;
  if (active) view.active_bead = active;
  if (s && running) {
    view.session = { name: s.sessionName, attached: false };
    if (rt && rt.lastActivity > 0) view.session.last_activity = new Date(rt.lastActivity).toISOString();
  }
  return view;
}
