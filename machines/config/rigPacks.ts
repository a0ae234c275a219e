/**
 * Rig-level packs (`[[rigs]] includes = [...]`), expanded as upstream does: every agent of the pack that is
 * not city-scoped is stamped once for the rig (`dir = <rig>`, so its identity is `<rig>/<name>`), the
 * pack's providers are added where the city has none of that name, and the rig's `overrides` and `patches`
 * (`agent = "<name>"` plus the fields to change) are applied to the stamped agents. An agent the city
 * defines itself under the same identity wins. Pure.
 */
import { patchAgent } from './applyPatches.ts';
import { originOf } from './packTree.ts';
import {
  agentIdentity,
  strOf,
  tableOf,
  tablesOf,
  type PackLayer,
  type Source,
  type Table,
} from './layers.ts';

/** One pack a rig includes, read from its directory. */
export interface RigPackLayer extends PackLayer {
  rig: string;
}

/** The parts of a composition in progress that rig packs add to. */
export interface RigPackTarget {
  agents: Map<string, Table>;
  providers: Record<string, Table>;
  sources: Record<string, Source>;
  rigs: Table[];
  unmatchedPatches: Array<{ field: string; target: string }>;
  /** Rig-stamped named sessions are appended here. */
  namedSessions?: Table[];
}

/** Stamps each rig's pack agents into `c` and applies the rig's overrides to them. Mutates `c`. */
export function expandRigPacks(c: RigPackTarget, layers: RigPackLayer[]): void {
  const stampedBy = new Map<string, Set<string>>();
  for (const layer of layers) {
    const source: Source = { origin: 'pack', file: layer.file, pack: layer.name };
    const stamped = stampedBy.get(layer.rig) ?? new Set<string>();
    stampedBy.set(layer.rig, stamped);
    for (const agent of tablesOf(layer.doc.agent)) {
      if (agent.scope === 'city') continue;
      // An explicit dir is kept (upstream stamps only an empty one).
      const copy: Table = { ...agent, dir: strOf(agent.dir) ?? layer.rig };
      const id = agentIdentity(copy);
      if (c.agents.has(id)) continue;
      c.agents.set(id, copy);
      stamped.add(id);
      const file = originOf(agent)?.file;
      for (const key of Object.keys(copy))
        c.sources[`agents.${id}.${key}`] = file ? { ...source, file } : source;
    }
    // Named sessions follow their agents: stamped with the rig unless city-scoped (upstream).
    for (const s of tablesOf(layer.doc.named_session))
      if (s.scope !== 'city') c.namedSessions?.push({ ...s, dir: strOf(s.dir) ?? layer.rig });
    for (const [name, spec] of Object.entries(tableOf(layer.doc.providers))) {
      if (Object.hasOwn(c.providers, name)) continue;
      c.providers[name] = { ...tableOf(spec) };
      for (const key of Object.keys(tableOf(spec))) c.sources[`providers.${name}.${key}`] = source;
    }
  }
  c.rigs.forEach((rig, i) => {
    const name = strOf(rig.name);
    if (!name) return;
    for (const list of ['overrides', 'patches'] as const) {
      tablesOf(rig[list]).forEach((o, j) => {
        // Upstream matches the bare name: `polecat` reaches `rig/gs.polecat` too.
        const bare = strOf(o.agent) ?? '';
        const id =
          [...(stampedBy.get(name) ?? [])].find((s) => s === `${name}/${bare}` || s.endsWith(`.${bare}`)) ??
          `${name}/${bare}`;
        const target = stampedBy.get(name)?.has(id) ? c.agents.get(id) : undefined;
        if (!target) {
          c.unmatchedPatches.push({ field: `rigs[${i}].${list}[${j}]`, target: `agent ${id}` });
          return;
        }
        const body = Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'agent'));
        patchAgent(target, body, c.sources, `agents.${id}`);
      });
    }
  });
}
