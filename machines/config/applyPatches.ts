import type { ComposedConfig } from './composedConfig.ts';
import { agentIdentity, CITY_FILE, listOf, strOf, tableOf, type Source, type Table } from './layers.ts';

const patch: Source = { origin: 'patch', file: CITY_FILE };

/** Keys of a patch table that address its target rather than change it. */
const AGENT_KEYS = new Set(['dir', 'name']);
const NAME_KEY = new Set(['name']);

/** `*_append` keys append to the list of the key without the suffix. */
const APPEND = '_append';

/**
 * Applies an agent patch to its target: every key replaces, except `env` (merged, then `env_remove`
 * deletes), `option_defaults` (merged) and `<key>_append` (appended to `<key>`). `pool` maps onto the
 * pool bounds (min/max_active_sessions, scale_check, drain_timeout, on_death, on_boot). Mutates `target`.
 */
export function patchAgent(target: Table, p: Table, sources: Record<string, Source>, prefix: string): void {
  for (const [key, value] of Object.entries(p)) {
    if (AGENT_KEYS.has(key) || value === undefined) continue;
    if (key === 'env' || key === 'option_defaults') {
      target[key] = { ...tableOf(target[key]), ...tableOf(value) };
    } else if (key === 'env_remove' && Array.isArray(value)) {
      const env = { ...tableOf(target.env) };
      for (const k of value) delete env[String(k)];
      target.env = env;
      sources[`${prefix}.env`] = patch;
      continue;
    } else if (key === 'pool') {
      const pool = tableOf(value);
      const map: Record<string, string> = {
        min: 'min_active_sessions',
        max: 'max_active_sessions',
        check: 'scale_check',
        drain_timeout: 'drain_timeout',
        on_death: 'on_death',
        on_boot: 'on_boot',
      };
      for (const [k, v] of Object.entries(pool)) {
        const field = map[k];
        if (field) {
          target[field] = v;
          sources[`${prefix}.${field}`] = patch;
        }
      }
      continue;
    } else if (key.endsWith(APPEND) && Array.isArray(value)) {
      const base = key.slice(0, -APPEND.length);
      target[base] = [...listOf(target[base]), ...listOf(value)];
      sources[`${prefix}.${base}`] = patch;
      continue;
    } else {
      target[key] = value;
    }
    sources[`${prefix}.${key}`] = patch;
  }
}

/** A provider patch: `_replace` replaces the whole block; otherwise as an agent patch (env merges). */
function patchProvider(
  providers: Record<string, Table>,
  name: string,
  p: Table,
  sources: Record<string, Source>,
): void {
  const prefix = `providers.${name}`;
  if (p._replace === true) {
    providers[name] = {};
    for (const key of Object.keys(sources)) if (key.startsWith(`${prefix}.`)) delete sources[key];
  }
  const body = Object.fromEntries(Object.entries(p).filter(([k]) => k !== '_replace'));
  patchAgent(providers[name]!, body, sources, prefix);
}

/**
 * Applies the city's `[patches]` to the composed agents, providers and rigs (after every pack, so a patch
 * can target a pack's agent). A patch whose target exists in no layer is reported in `unmatchedPatches`
 * (validation turns it into an error naming the patch). Mutates `c`; pure otherwise.
 */
export function applyPatches(c: ComposedConfig): void {
  c.patches.agent.forEach((p, i) => {
    const id = agentIdentity(p);
    const target = c.agents.find((a) => agentIdentity(a) === id);
    if (!target) c.unmatchedPatches.push({ field: `patches.agent[${i}]`, target: `agent ${id}` });
    else patchAgent(target, p, c.sources, `agents.${id}`);
  });
  c.patches.providers.forEach((p, i) => {
    const name = strOf(p.name) ?? '';
    if (!Object.hasOwn(c.providers, name))
      c.unmatchedPatches.push({ field: `patches.providers[${i}]`, target: `provider ${name}` });
    else patchProvider(c.providers, name, p, c.sources);
  });
  c.patches.rigs.forEach((p, i) => {
    const name = strOf(p.name) ?? '';
    const target = c.rigs.find((r) => r.name === name);
    if (!target) c.unmatchedPatches.push({ field: `patches.rigs[${i}]`, target: `rig ${name}` });
    else
      patchAgent(
        target,
        Object.fromEntries(Object.entries(p).filter(([k]) => !NAME_KEY.has(k))),
        c.sources,
        `rigs.${name}`,
      );
  });
}
