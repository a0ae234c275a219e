/**
 * Agent templates as the city's config describes them, and the instances (slots) a template has: a
 * singleton agent is one instance named by its qualified name; a pool (`max_active_sessions` > 1, or a
 * `min_active_sessions` above one) has instances `<name>-1 … <name>-N`, or its namepool's names. Pure.
 */
import type { AgentConfig } from '../../schemas/cityToml.ts';

/** The `[[agent]]` fields the agent layer reads. */
export type AgentTemplateConfig = Pick<
  AgentConfig,
  | 'name'
  | 'dir'
  | 'provider'
  | 'start_command'
  | 'suspended'
  | 'min_active_sessions'
  | 'max_active_sessions'
  | 'scale_check'
  | 'work_query'
  | 'depends_on'
  | 'description'
  | 'default_sling_formula'
  | 'namepoolNames'
>;

export interface AgentTemplate {
  /** `name` or `dir/name`. */
  qualified: string;
  base: string;
  dir?: string;
  provider?: string;
  startCommand?: string;
  suspended: boolean;
  min: number;
  /** Undefined: unlimited. */
  max: number | undefined;
  pool: boolean;
  scaleCheck?: string;
  /** `work_query`: the shell command `gc hook` runs for the agent's work (else the built-in query). */
  workQuery?: string;
  dependsOn: string[];
  description?: string;
  defaultSlingFormula?: string;
  /** The namepool's names: pool slot n is named by the n-th (upstream's `NamepoolNames`). */
  names?: string[];
}

export const qualifiedName = (a: { name: string; dir?: string }): string =>
  a.dir ? `${a.dir}/${a.name}` : a.name;

export function templateOf(a: AgentTemplateConfig): AgentTemplate {
  const min = Math.max(0, a.min_active_sessions ?? 0);
  const rawMax = a.max_active_sessions;
  const max = rawMax === undefined ? (min > 1 ? min : 1) : rawMax < 0 ? undefined : rawMax;
  const t: AgentTemplate = {
    qualified: qualifiedName(a),
    base: a.name,
    suspended: a.suspended === true,
    min,
    max,
    pool: max === undefined || max > 1,
    dependsOn: a.depends_on ?? [],
  };
  if (a.dir) t.dir = a.dir;
  if (a.provider) t.provider = a.provider;
  if (a.start_command) t.startCommand = a.start_command;
  if (a.scale_check) t.scaleCheck = a.scale_check;
  if (a.work_query) t.workQuery = a.work_query;
  if (a.description) t.description = a.description;
  if (a.default_sling_formula) t.defaultSlingFormula = a.default_sling_formula;
  if (a.namepoolNames?.length) t.names = a.namepoolNames;
  return t;
}

/**
 * The instance name of pool slot `slot` (1-based), or the template's own name for a singleton. As
 * upstream's `poolInstanceName`: the namepool's `slot`-th name when it has one, in place of the agent's
 * own name (its rig and import binding kept: `app/gastown.furiosa`), else `<name>-<slot>`.
 */
export function instanceName(t: AgentTemplate, slot: number): string {
  if (!t.pool) return t.qualified;
  const themed = t.names?.[slot - 1];
  if (themed === undefined) return `${t.qualified}-${slot}`;
  return t.qualified.slice(0, t.qualified.length - bare(t.base).length) + themed;
}

/** The name without its import binding (`gastown.polecat` → `polecat`). */
const bare = (name: string): string => name.slice(name.lastIndexOf('.') + 1);

/**
 * The pool slot instance `instance` of `t` holds (its namepool position, or its `-<n>` suffix), 0 when it
 * is none of them (a manual session's own name). Pure.
 */
export function slotOf(t: AgentTemplate, instance: string): number {
  const themed = t.names?.findIndex((_, i) => instanceName(t, i + 1) === instance) ?? -1;
  if (themed >= 0) return themed + 1;
  const prefix = `${t.qualified}-`;
  const n = instance.startsWith(prefix) ? Number(instance.slice(prefix.length)) : NaN;
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/** Desired session count of a template: `demand` (from its scale check, else its minimum) within its bounds. */
export function desiredCount(t: AgentTemplate, demand: number | undefined): number {
  if (t.suspended) return 0;
  const wanted = Math.max(t.min, demand ?? t.min);
  return t.max === undefined ? wanted : Math.min(wanted, t.max);
}

/** A template's dependencies that are not running yet (its sessions wait for them: start waves). */
export function blockedBy(t: AgentTemplate, runningTemplates: ReadonlySet<string>): string[] {
  return t.dependsOn.filter((d) => !runningTemplates.has(d));
}

/** The templates whose `depends_on` forms a cycle (they could never start): reported, never started. */
export function dependencyCycles(templates: readonly AgentTemplate[]): string[] {
  const byName = new Map(templates.map((t) => [t.qualified, t]));
  const state = new Map<string, 'visiting' | 'done'>();
  const cyclic = new Set<string>();
  const visit = (name: string, path: string[]): void => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      for (const n of path.slice(path.indexOf(name))) cyclic.add(n);
      return;
    }
    state.set(name, 'visiting');
    for (const d of byName.get(name)?.dependsOn ?? []) if (byName.has(d)) visit(d, [...path, name]);
    state.set(name, 'done');
  };
  for (const t of templates) visit(t.qualified, []);
  return [...cyclic].sort();
}
