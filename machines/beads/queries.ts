import type { Bead, WorkflowDep } from '../../schemas/beads.ts';
import { depsOf } from './beadShape.ts';
import type { HalvedIndex } from './indexes.ts';
import { RIG_KEY, type BeadEntry, type BeadModel, type StoredBead } from './model.ts';
import { pageOf, smallest, type Page } from './paging.ts';
import { present } from './ready.ts';

/** Filters of the bead list; all given ones are ANDed. */
export interface BeadFilter {
  status?: string;
  type?: string;
  label?: string;
  assignee?: string;
  rig?: string;
  /** Include closed beads (an explicit `status` includes them too). */
  all?: boolean;
}

/** A predicate for `filter`. This is a pure function. */
export function beadMatcher(filter: BeadFilter): (bead: StoredBead) => boolean {
  const { status, type, label, assignee, rig, all } = filter;
  return (b) =>
    (status ? b.status === status : all === true || b.status !== 'closed') &&
    (!type || b.issue_type === type) &&
    (!label || (b.labels?.includes(label) ?? false)) &&
    (!assignee || b.assignee === assignee) &&
    (!rig || b.metadata?.[RIG_KEY] === rig);
}

/**
 * One page of the beads matching `filter`, newest first, older than the cursor's `before` ordinal.
 *
 * Every filter is an equality on an indexed field, so a match is a member of each index entry the filter
 * names, in the half (open or closed) it asks for: membership answers without reading beads, a single
 * filter counts in O(1), and the page walks the newest beads. This is a pure function.
 */
export function listBeads(
  model: Readonly<BeadModel>,
  filter: BeadFilter,
  size: number,
  before?: number,
): Page<Bead> {
  const { byStatus, byType, byLabel, byAssignee, byRig } = model.indexes;
  const half: 'open' | 'closed' | 'both' = filter.status
    ? filter.status === 'closed'
      ? 'closed'
      : 'open'
    : filter.all
      ? 'both'
      : 'open';
  const pick = (index: HalvedIndex, value: string | undefined): ReadonlySet<string> | undefined => {
    if (!value) return undefined;
    if (half !== 'both') return index[half].get(value) ?? EMPTY;
    const open = index.open.get(value);
    const closed = index.closed.get(value);
    return !open ? (closed ?? EMPTY) : !closed ? open : new Set([...open, ...closed]);
  };
  const required = [
    filter.status ? (byStatus.get(filter.status) ?? EMPTY) : undefined,
    pick(byType, filter.type),
    pick(byLabel, filter.label),
    pick(byAssignee, filter.assignee),
    pick(byRig, filter.rig),
  ].filter((set): set is ReadonlySet<string> => set !== undefined);
  // Without a filter, the open half is every bead but the closed ones.
  const closed = required.length === 0 && half === 'open' ? (byStatus.get('closed') ?? EMPTY) : EMPTY;
  const candidates = smallest(required);
  const others = required.filter((set) => set !== candidates);
  return pageOf(model, {
    candidates,
    matchesId: (id) => !closed.has(id) && others.every((set) => set.has(id)),
    map: (e) => present(model, e.bead),
    size,
    before,
    total: !candidates ? model.beads.size - closed.size : others.length === 0 ? candidates.size : undefined,
  });
}

const EMPTY: ReadonlySet<string> = new Set();

const byOrdinal = (a: BeadEntry, b: BeadEntry) => a.ordinal - b.ordinal;

function entries(model: BeadModel, ids: Iterable<string> | undefined): BeadEntry[] {
  const out: BeadEntry[] = [];
  for (const id of ids ?? []) {
    const entry = model.beads.get(id);
    if (entry) out.push(entry);
  }
  return out;
}

/**
 * The children of a bead, oldest first: beads whose parent it is, then the molecules its metadata
 * names (`molecule_id`, `workflow_id`), each once. Undefined when the bead does not exist.
 * This is a pure function.
 */
export function childrenOf(model: BeadModel, id: string): Bead[] | undefined {
  const bead = model.beads.get(id)?.bead;
  if (!bead) return undefined;
  const children = entries(model, model.indexes.children.get(id)).sort(byOrdinal);
  const seen = new Set(children.map((e) => e.bead.id));
  for (const key of ['molecule_id', 'workflow_id']) {
    const attached = bead.metadata?.[key];
    const entry = attached ? model.beads.get(attached) : undefined;
    if (entry && !seen.has(attached!)) {
      seen.add(attached!);
      children.push(entry);
    }
  }
  return children.map((e) => present(model, e.bead));
}

/** A workflow graph: its root, every bead under it, and the edges among them. */
export interface Graph {
  root: Bead;
  beads: Bead[];
  deps: WorkflowDep[];
}

/**
 * The workflow graph of `rootId`: the root plus every bead, closed ones included, whose metadata
 * `gc.root_bead_id` is the root or that descends from a member through `parent` (oldest first), and the
 * dependency edges among them as `{from: prerequisite, to: dependent, kind}`. A member's parent link is
 * the `parent-child` edge `{from: parent, to: child}`, as bd records it, listed once.
 * Undefined when the root does not exist. This is a pure function.
 */
export function graphOf(model: BeadModel, rootId: string): Graph | undefined {
  const root = model.beads.get(rootId);
  if (!root) return undefined;
  const found = new Map<string, BeadEntry>([[rootId, root]]);
  for (const entry of entries(model, model.indexes.roots.get(rootId))) found.set(entry.bead.id, entry);
  // Children hang under any member, so walk the parent links down from every member found so far.
  const queue = [...found.keys()];
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    for (const child of entries(model, model.indexes.children.get(id))) {
      if (found.has(child.bead.id)) continue;
      found.set(child.bead.id, child);
      queue.push(child.bead.id);
    }
  }
  const members = [root, ...[...found.values()].filter((e) => e !== root).sort(byOrdinal)];
  const deps: WorkflowDep[] = [];
  const seen = new Set<string>();
  const edge = (from: string, to: string, kind: string) => {
    const key = `${from}\u0000${to}\u0000${kind}`;
    if (seen.has(key) || !found.has(from)) return;
    seen.add(key);
    deps.push({ from, to, kind });
  };
  for (const { bead } of members) {
    for (const dep of depsOf(bead)) edge(dep.depends_on_id, bead.id, dep.type);
    if (bead.parent) edge(bead.parent, bead.id, 'parent-child');
  }
  return { root: present(model, root.bead), beads: members.map((e) => present(model, e.bead)), deps };
}
