/**
 * A pack and the packs it reaches, expanded as upstream's pack loader does: the agents of its includes
 * (depth first), then of its imports (sorted by binding; an imported agent takes the binding unless it has
 * one, or always with `export`; `transitive = false` keeps only the imported pack's own agents), then its
 * own `[[agent]]` tables, then its `agents/<name>/` directories (a name the pack's `[[agent]]` tables use
 * shadows its directory). Among agents of one identity a `fallback = true` one yields; the pack's
 * `[[patches.agent]]` then apply to the merged list. The tree is read by actors/config/packTree.ts. Pure.
 */
import { patchAgent } from './applyPatches.ts';
import { agentIdentity, strOf, tableOf, tablesOf, textOf, type Table } from './layers.ts';
import type { ConfigProblem } from './problems.ts';

/**
 * Where an agent table was defined: its pack's directory (`{{.ConfigDir}}`, absolute) and file (relative to
 * the city). Kept on the table under a symbol so it follows every copy (`{ ...agent }`) without being a key
 * that views, sources or patches see.
 */
export const AGENT_ORIGIN = Symbol('agentOrigin');
export interface AgentOrigin {
  dir: string;
  file: string;
  /** Keys a pack's `[[patches.agent]]` set, with the pack.toml that set them (explain credits them). */
  patched?: Record<string, string>;
}
export const originOf = (t: Table): AgentOrigin | undefined =>
  (t as { [AGENT_ORIGIN]?: AgentOrigin })[AGENT_ORIGIN];
export function withOrigin(t: Table, origin: AgentOrigin): Table {
  const copy: Table = { ...t };
  (copy as { [AGENT_ORIGIN]?: AgentOrigin })[AGENT_ORIGIN] = origin;
  return copy;
}

/** One pack as read from disk. */
export interface PackNode {
  name: string;
  /** Absolute directory. */
  dir: string;
  /** Its pack.toml, relative to the city. */
  file: string;
  doc: Table;
  /** `agents/<name>/` directories: the agent table each yields (agent.toml plus the files found). */
  conventionAgents: Array<{ table: Table; file: string }>;
  /** `[pack].includes` then `[imports.*]` (sorted by binding), each read. */
  children: PackChild[];
}

export interface PackChild {
  kind: 'include' | 'import';
  /** The binding of an import. */
  binding?: string;
  spec: Table;
  node: PackNode;
}

/** What a pack contributes once expanded. */
export interface ExpandedPack {
  agents: Table[];
  namedSessions: Table[];
  providers: Record<string, Table>;
  services: Table[];
  /** `[global] session_live` of every pack reached, `{{.ConfigDir}}` already replaced. */
  sessionLive: string[];
  /** Every pack reached, included before includer, each once. */
  nodes: PackNode[];
  problems: ConfigProblem[];
}

const bareName = (name: string): string => name.slice(name.lastIndexOf('.') + 1);
const hasBinding = (name: string): boolean => name.includes('.');

/** `name` under `binding` (replacing one it has). */
export const bindName = (binding: string, name: string): string => `${binding}.${bareName(name)}`;

/** Re-stamps an agent's name (and bare dependencies) with `binding`. */
function bindAgent(agent: Table, binding: string): Table {
  const copy: Table = { ...agent, name: bindName(binding, textOf(agent.name)) };
  if (Array.isArray(agent.depends_on))
    copy.depends_on = (agent.depends_on as unknown[]).map((d) =>
      typeof d === 'string' && !d.includes('/') && !d.includes('.') ? bindName(binding, d) : d,
    );
  return copy;
}

function bindSession(s: Table, binding: string): Table {
  const copy = { ...s };
  for (const k of ['template', 'name'])
    if (typeof s[k] === 'string' && !String(s[k]).includes('/')) copy[k] = bindName(binding, String(s[k]));
  return copy;
}

/** Among tables of one identity: the first non-fallback, else the first. Order kept by first sight. */
function resolveFallbacks(agents: Table[]): Table[] {
  const byId = new Map<string, Table>();
  for (const a of agents) {
    const id = agentIdentity(a);
    const had = byId.get(id);
    if (!had || (had.fallback === true && a.fallback !== true)) byId.set(id, a);
  }
  return [...byId.values()];
}

/**
 * Expands one pack read from disk. `rebase(path, dir)` makes a path of a pack in `dir` relative to the city
 * (the caller knows the city directory). Pure.
 */
export function expandPack(node: PackNode, rebase: (path: string, dir: string) => string): ExpandedPack {
  const out: ExpandedPack = {
    agents: [],
    namedSessions: [],
    providers: {},
    services: [],
    sessionLive: [],
    nodes: [],
    problems: [],
  };
  const seenNodes = new Set<string>();
  const addNodes = (nodes: PackNode[]) => {
    for (const n of nodes) {
      if (seenNodes.has(n.dir)) continue;
      seenNodes.add(n.dir);
      out.nodes.push(n);
    }
  };
  const agents: Table[] = [];
  for (const child of node.children) {
    const sub = expandPack(child.node, rebase);
    addNodes(sub.nodes);
    out.problems.push(...sub.problems);
    let list = sub.agents;
    let sessions = sub.namedSessions;
    if (child.kind === 'import') {
      const binding = child.binding!;
      if (child.spec.transitive === false) list = list.filter((a) => originOf(a)?.dir === child.node.dir);
      const always = child.spec.export === true;
      list = list.map((a) => (always || !hasBinding(textOf(a.name)) ? bindAgent(a, binding) : a));
      sessions = sessions.map((s) =>
        always || !hasBinding(textOf(s.template)) ? bindSession(s, binding) : s,
      );
    }
    agents.push(...list);
    out.namedSessions.push(...sessions);
    for (const [name, spec] of Object.entries(sub.providers))
      if (!Object.hasOwn(out.providers, name)) out.providers[name] = spec;
    out.services.push(...sub.services);
    out.sessionLive.push(...sub.sessionLive);
  }
  addNodes([node]);
  const own = tablesOf(node.doc.agent).map((a) =>
    withOrigin(rebaseAgent(a, node.dir, rebase), { dir: node.dir, file: node.file }),
  );
  const ownNames = new Set(own.map((a) => textOf(a.name)));
  agents.push(...own);
  for (const { table, file } of node.conventionAgents)
    if (!ownNames.has(textOf(table.name))) agents.push(withOrigin(table, { dir: node.dir, file }));
  out.agents = resolveFallbacks(agents);
  tablesOf(tableOf(node.doc.patches).agent).forEach((p, i) => {
    const name = strOf(p.name) ?? '';
    const dir = strOf(p.dir);
    const target = out.agents.find(
      (a) => bareName(textOf(a.name)) === bareName(name) && (dir === undefined || strOf(a.dir) === dir),
    );
    if (!target) {
      out.problems.push({
        severity: 'error',
        file: node.file,
        field: `patches.agent[${i}]`,
        message: `agent "${name}" not found in pack`,
      });
      return;
    }
    const touched: Record<string, unknown> = {};
    patchAgent(target, rebaseAgent(p, node.dir, rebase), touched as Parameters<typeof patchAgent>[2], 'p');
    const origin = originOf(target);
    if (origin) {
      const patched = { ...origin.patched };
      for (const key of Object.keys(touched)) patched[key.slice(2)] = node.file;
      Object.assign(target, withOrigin(target, { ...origin, patched }));
    }
  });
  out.namedSessions.push(...tablesOf(node.doc.named_session).map((s) => ({ ...s })));
  for (const [name, spec] of Object.entries(tableOf(node.doc.providers)))
    out.providers[name] = { ...tableOf(spec) };
  out.services.push(
    ...tablesOf(node.doc.service).map((s) => withOrigin(s, { dir: node.dir, file: node.file })),
  );
  const live = tableOf(node.doc.global).session_live;
  if (Array.isArray(live))
    for (const cmd of live)
      if (typeof cmd === 'string') out.sessionLive.push(cmd.split('{{.ConfigDir}}').join(node.dir));
  return out;
}

/** Agent keys holding a path relative to the pack that defines them. */
export const AGENT_PATH_KEYS = ['prompt_template', 'session_setup_script', 'overlay_dir'] as const;

function rebaseAgent(a: Table, dir: string, rebase: (path: string, dir: string) => string): Table {
  const copy = { ...a };
  for (const key of AGENT_PATH_KEYS) {
    const p = copy[key];
    if (typeof p === 'string' && p !== '') copy[key] = rebase(p, dir);
  }
  return copy;
}

/** Every agent and named session of an expansion, re-stamped under a top-level `binding`. Pure. */
export function bindExpanded(e: ExpandedPack, binding: string): ExpandedPack {
  return {
    ...e,
    agents: e.agents.map((a) => bindAgent(a, binding)),
    namedSessions: e.namedSessions.map((s) => bindSession(s, binding)),
  };
}
