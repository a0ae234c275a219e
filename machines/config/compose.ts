import { applyPatches } from './applyPatches.ts';
import { originOf } from './packTree.ts';
import { expandRigPacks } from './rigPacks.ts';
import type { ComposedConfig } from './composedConfig.ts';
import {
  agentIdentity,
  CITY_FILE,
  listOf,
  strOf,
  tableOf,
  tablesOf,
  textOf,
  type ConfigLayers,
  type Source,
  type Table,
} from './layers.ts';

export type { ComposedConfig } from './composedConfig.ts';

/** Top-level keys composition itself consumes (the others pass through in `rest`). */
const COMPOSED_KEYS = new Set([
  'workspace',
  'agent',
  'providers',
  'rigs',
  'service',
  'named_session',
  'patches',
  'include',
  'packs',
  'imports',
]);

const cityFile: Source = { origin: 'city', file: CITY_FILE };

/** Records `source` for every key of `table` under `prefix`. */
function stamp(sources: Record<string, Source>, prefix: string, table: Table, source: Source): void {
  for (const key of Object.keys(table)) sources[`${prefix}.${key}`] = source;
}

/** Drops every recorded source under `prefix` (a table replaced as a whole). */
function unstamp(sources: Record<string, Source>, prefix: string): void {
  for (const key of Object.keys(sources)) if (key.startsWith(`${prefix}.`)) delete sources[key];
}

/**
 * Composes the layers: builtins, packs in order, city.toml, then its patches. Agents and services are
 * replaced whole by a later layer's table of the same identity; providers and the workspace merge key by
 * key. Rigs come from city.toml only (upstream: rigs cannot be pack-derived). This is a pure function.
 */
export function composeConfig(layers: ConfigLayers): ComposedConfig {
  const sources: Record<string, Source> = {};
  const workspace: Table = { name: layers.cityName };
  sources['workspace.name'] = { origin: 'default' };
  const providers: Record<string, Table> = {};
  for (const [name, spec] of Object.entries(layers.builtinProviders)) {
    providers[name] = { ...spec };
    stamp(sources, `providers.${name}`, spec, { origin: 'default' });
  }
  const agents = new Map<string, Table>();
  const services = new Map<string, Table>();
  const namedSessions: Table[] = [];

  const merge = (doc: Table, source: Source): void => {
    const ws = tableOf(doc.workspace);
    Object.assign(workspace, ws);
    stamp(sources, 'workspace', ws, source);
    for (const [name, spec] of Object.entries(tableOf(doc.providers))) {
      const table = tableOf(spec);
      providers[name] = { ...(providers[name] ?? {}), ...table };
      stamp(sources, `providers.${name}`, table, source);
    }
    // A rig-scoped agent or named session of an included pack is stamped per rig that includes the pack
    // (rigPacks.ts), never here; the city's own pack.toml defines city agents whatever their scope.
    const rigScoped = (t: Table) => source.origin === 'pack' && !cityPack && t.scope === 'rig';
    for (const agent of tablesOf(doc.agent)) {
      if (rigScoped(agent)) continue;
      const id = agentIdentity(agent);
      // A fallback agent yields to one of the same identity defined elsewhere (upstream's `fallback`).
      if (agent.fallback === true && agents.has(id) && agents.get(id)!.fallback !== true) continue;
      // Only a replaced agent has sources to drop (scanning them for every agent is quadratic).
      if (agents.delete(id)) unstamp(sources, `agents.${id}`);
      agents.set(id, { ...agent });
      const origin = originOf(agent);
      const file = origin?.file;
      stamp(sources, `agents.${id}`, agent, file && source.origin === 'pack' ? { ...source, file } : source);
      // Keys a pack's own patch set come from that pack.toml.
      if (source.origin === 'pack')
        for (const [key, patchFile] of Object.entries(origin?.patched ?? {}))
          if (key in agent) sources[`agents.${id}.${key}`] = { ...source, file: patchFile };
    }
    for (const service of tablesOf(doc.service)) {
      const name = textOf(service.name);
      if (services.delete(name)) unstamp(sources, `services.${name}`);
      services.set(name, { ...service });
      stamp(sources, `services.${name}`, service, source);
    }
    namedSessions.push(
      ...tablesOf(doc.named_session)
        .filter((t) => !rigScoped(t))
        .map((t) => ({ ...t })),
    );
  };

  let cityPack = false;
  for (const pack of layers.packs) {
    cityPack = pack.cityPack === true;
    merge(pack.doc, { origin: 'pack', file: pack.file, pack: pack.name });
  }
  cityPack = false;
  merge(layers.city, cityFile);

  const rigs = tablesOf(layers.city.rigs).map((r) => ({ ...r }));
  for (const rig of rigs) stamp(sources, `rigs.${textOf(rig.name)}`, rig, cityFile);
  // `layers.city` has its include fragments merged in already: their values are credited to their file.
  for (const { file, doc } of layers.fragments ?? []) {
    const source: Source = { origin: 'city', file };
    stamp(sources, 'workspace', tableOf(doc.workspace), source);
    for (const [name, spec] of Object.entries(tableOf(doc.providers)))
      stamp(sources, `providers.${name}`, tableOf(spec), source);
    for (const agent of tablesOf(doc.agent)) stamp(sources, `agents.${agentIdentity(agent)}`, agent, source);
    for (const service of tablesOf(doc.service))
      stamp(sources, `services.${textOf(service.name)}`, service, source);
    for (const rig of tablesOf(doc.rigs)) stamp(sources, `rigs.${textOf(rig.name)}`, rig, source);
  }

  const unmatchedPatches: ComposedConfig['unmatchedPatches'] = [];
  expandRigPacks(
    { agents, providers, sources, rigs, unmatchedPatches, namedSessions },
    layers.rigPacks ?? [],
  );

  const patchTable = tableOf(layers.city.patches);
  const patches = {
    agent: tablesOf(patchTable.agent),
    rigs: tablesOf(patchTable.rigs),
    providers: tablesOf(patchTable.providers),
  };
  const composed: ComposedConfig = {
    workspace,
    agents: [...agents.values()],
    providers,
    rigs,
    services: [...services.values()],
    namedSessions,
    rest: Object.fromEntries(Object.entries(layers.city).filter(([k]) => !COMPOSED_KEYS.has(k))),
    patches,
    sources,
    unmatchedPatches,
  };
  applyPatches(composed);
  appendGlobalSessionLive(composed, layers);
  // A suspended rig holds its agents: the reconciler starts none of them.
  for (const rig of rigs.filter((r) => r.suspended === true)) {
    for (const agent of composed.agents.filter((a) => strOf(a.dir) === rig.name)) agent.suspended = true;
  }
  return composed;
}

/**
 * `[global] session_live` of the city's packs goes to every agent, a rig pack's to that rig's agents
 * (upstream appends them after patches). Mutates `c`.
 */
function appendGlobalSessionLive(c: ComposedConfig, layers: ConfigLayers): void {
  const add = (agent: Table, live: string[], source: Source) => {
    if (live.length === 0) return;
    agent.session_live = [...listOf(agent.session_live), ...live];
    c.sources[`agents.${agentIdentity(agent)}.session_live`] = source;
  };
  for (const pack of layers.packs)
    for (const agent of c.agents)
      add(agent, pack.sessionLive ?? [], { origin: 'pack', file: pack.file, pack: pack.name });
  for (const pack of layers.rigPacks ?? [])
    for (const agent of c.agents.filter((a) => strOf(a.dir) === pack.rig))
      add(agent, pack.sessionLive ?? [], { origin: 'pack', file: pack.file, pack: pack.name });
}
