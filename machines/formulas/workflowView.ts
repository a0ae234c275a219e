import type {
  FormulaRecentRun,
  MonitorFeedItem,
  WorkflowBead,
  WorkflowProgress,
  WorkflowSnapshot,
} from '../../schemas/formulas.ts';
import type { WorkflowDep } from '../../schemas/beads.ts';
import {
  compactBead,
  acceptAll,
  notFound,
  type Outcome,
  beadEvent,
  BeadEventType,
  type EventContext,
} from '../beads/index.ts';
import type { BeadModel, StoredBead } from '../beads/index.ts';
import { WorkflowKey } from './cook.ts';

/** True for a workflow root (upstream: `gc.kind == "workflow"`). This is a pure function. */
export const isWorkflowRoot = (b: StoredBead): boolean => b.metadata?.[WorkflowKey.Kind] === 'workflow';

/** The root and its members (creation order), or undefined when `id` is not a workflow root. */
export function workflowBeads(
  model: Readonly<BeadModel>,
  id: string,
): { root: StoredBead; members: StoredBead[] } | undefined {
  const root = model.beads.get(id)?.bead;
  if (!root || !isWorkflowRoot(root)) return undefined;
  const members = [...(model.indexes.roots.get(id) ?? [])]
    .map((m) => model.beads.get(m))
    .filter((e) => e !== undefined)
    .sort((a, b) => a.ordinal - b.ordinal)
    .map((e) => e.bead);
  return { root, members };
}

const RANK = ['active', 'pending', 'failed', 'skipped', 'completed'] as const;
type RunStatus = (typeof RANK)[number];

function stepStatus(b: StoredBead): RunStatus {
  if (b.status === 'closed') {
    const outcome = b.metadata?.[WorkflowKey.Outcome];
    return outcome === 'fail' ? 'failed' : outcome === 'skipped' ? 'skipped' : 'completed';
  }
  return b.status === 'in_progress' && b.assignee ? 'active' : 'pending';
}

/**
 * A run's status, upstream's rule: a closed root is completed, failed (`gc.outcome=fail`) or skipped;
 * otherwise the highest-ranked step status (active > pending > failed > skipped > completed).
 * This is a pure function.
 */
export function runStatus(root: StoredBead, members: readonly StoredBead[]): RunStatus {
  if (root.status === 'closed') return stepStatus(root);
  let best: RunStatus = members.length === 0 ? 'pending' : 'completed';
  for (const m of members) {
    const s = stepStatus(m);
    if (RANK.indexOf(s) < RANK.indexOf(best)) best = s;
  }
  return best;
}

/** Counts of the steps by state and the share closed. This is a pure function. */
export function progressOf(root: StoredBead, members: readonly StoredBead[]): WorkflowProgress {
  const p = {
    status: runStatus(root, members),
    total: members.length,
    open: 0,
    in_progress: 0,
    closed: 0,
    percent: 0,
  };
  for (const m of members) {
    if (m.status === 'closed') p.closed++;
    else if (m.status === 'in_progress') p.in_progress++;
    else p.open++;
  }
  p.percent = p.total === 0 ? (root.status === 'closed' ? 100 : 0) : Math.floor((100 * p.closed) / p.total);
  return p;
}

function workflowBead(b: StoredBead): WorkflowBead {
  const wb: WorkflowBead = {
    id: b.id,
    title: b.title,
    status: b.status,
    kind: b.metadata?.[WorkflowKey.Kind] ?? b.issue_type,
    metadata: b.metadata ?? {},
  };
  if (b.assignee) wb.assignee = b.assignee;
  const ref = b.metadata?.[WorkflowKey.StepRef];
  if (ref) wb.step_ref = ref;
  return wb;
}

/**
 * `GET /workflow/{id}`: every bead, the `blocks` edges among them, and progress; undefined when `id` is not
 * a workflow root, or one of another `scope` than the one asked about (if any). This is a pure function.
 */
export function workflowSnapshot(
  model: Readonly<BeadModel>,
  city: string,
  id: string,
  index: number,
  scope?: WorkflowScope,
): WorkflowSnapshot | undefined {
  const wf = workflowBeads(model, id);
  if (!wf || !inScope(wf.root, city, scope)) return undefined;
  const all = [wf.root, ...wf.members];
  const ids = new Set(all.map((b) => b.id));
  const deps: WorkflowDep[] = all.flatMap((b) =>
    (b.dependencies ?? [])
      .filter((d) => ids.has(d.depends_on_id))
      .map((d) => ({ from: d.depends_on_id, to: b.id, kind: d.type })),
  );
  const at = scopeOf(wf.root, city);
  const store = `${at.kind}:${at.ref}`;
  return {
    workflow_id: id,
    root_bead_id: id,
    root_store_ref: store,
    resolved_root_store: store,
    scope_kind: at.kind,
    scope_ref: at.ref,
    beads: all.map(workflowBead),
    deps,
    logical_nodes: [],
    logical_edges: deps,
    scope_groups: [],
    partial: false,
    stores_scanned: [store],
    snapshot_version: index,
    snapshot_event_seq: index,
    progress: progressOf(wf.root, wf.members),
  };
}

/** Where a workflow runs: the city, or one of its rigs (upstream: the bead store it lives in). */
export interface WorkflowScope {
  kind: 'city' | 'rig';
  ref: string;
}

/** The scope a root was cooked in (`gc.scope_kind`/`gc.scope_ref`), the city's when unmarked. Pure. */
export function scopeOf(root: StoredBead, city: string): WorkflowScope {
  const kind = root.metadata?.[WorkflowKey.ScopeKind] === 'rig' ? 'rig' : 'city';
  return { kind, ref: root.metadata?.[WorkflowKey.ScopeRef] ?? city };
}

/** True when `root` is of `scope`, or no scope is asked about. Pure. */
export function inScope(root: StoredBead, city: string, scope: WorkflowScope | undefined): boolean {
  if (!scope) return true;
  const { kind, ref } = scopeOf(root, city);
  return kind === scope.kind && ref === scope.ref;
}

/**
 * Tears a workflow down: closes every bead of it not yet closed (steps first, the root last), or with
 * `remove` deletes them all. One decision, one batch. A workflow of another `scope` than the one asked
 * about (if any) of city `city` is not found. This is a pure function.
 */
export function teardownDecider(id: string, remove: boolean, city: string, scope?: WorkflowScope) {
  return (model: Readonly<BeadModel>, ctx: EventContext): Outcome<{ closed: number; deleted: number }> => {
    const wf = workflowBeads(model, id);
    if (!wf || !inScope(wf.root, city, scope)) return notFound('workflow', id);
    const order = [...wf.members, wf.root];
    if (remove) {
      const events = order.map((b) => beadEvent(BeadEventType.Deleted, b, ctx));
      return acceptAll({ closed: 0, deleted: order.length }, events);
    }
    const open = order.filter((b) => b.status !== 'closed');
    const events = open.map((b) =>
      beadEvent(BeadEventType.Closed, compactBead({ ...b, status: 'closed', updated_at: ctx.now }), ctx),
    );
    return acceptAll({ closed: open.length, deleted: 0 }, events);
  };
}

/** Every workflow root (of `formula`, in `scope`, when given), in creation order. */
function workflowRoots(
  model: Readonly<BeadModel>,
  city: string,
  formula?: string,
  scope?: WorkflowScope,
): StoredBead[] {
  const out: StoredBead[] = [];
  for (const { bead } of model.beads.values()) {
    if (!isWorkflowRoot(bead)) continue;
    if (formula !== undefined && (bead.ref ?? bead.metadata?.[WorkflowKey.FormulaName]) !== formula) continue;
    if (!inScope(bead, city, scope)) continue;
    out.push(bead);
  }
  return out;
}

function recentRun(model: Readonly<BeadModel>, root: StoredBead): FormulaRecentRun & { rank: number } {
  const members = workflowBeads(model, root.id)?.members ?? [];
  const status = runStatus(root, members);
  let updated = root.created_at;
  for (const m of members) if (m.created_at > updated) updated = m.created_at;
  const md = root.metadata ?? {};
  return {
    workflow_id: root.id,
    status,
    target:
      md[WorkflowKey.RunTarget] ?? md['gc.execution_routed_to'] ?? md[WorkflowKey.RoutedTo] ?? 'workflow',
    started_at: root.created_at,
    updated_at: updated,
    rank: RANK.indexOf(status),
  };
}

/**
 * `GET /formulas/{name}/runs`: the newest `limit` runs (default 3, at most 20) of `scope` (every scope when
 * undefined) and their count.
 */
export function formulaRuns(
  model: Readonly<BeadModel>,
  city: string,
  formula: string,
  limit: number | undefined,
  scope?: WorkflowScope,
) {
  const runs = workflowRoots(model, city, formula, scope).map((r) => recentRun(model, r));
  runs.sort((a, b) => cmp(b.updated_at, a.updated_at) || cmp(b.started_at, a.started_at));
  const n = limit === undefined || limit === 0 ? 3 : Math.min(limit, 20);
  return { run_count: runs.length, recent_runs: runs.slice(0, n).map(({ rank: _rank, ...r }) => r) };
}

/**
 * `GET /formulas/feed`: one item per workflow run of `scope` (every scope when undefined), completed shown
 * as `done`; default 50, at most 500.
 */
export function formulaFeed(
  model: Readonly<BeadModel>,
  city: string,
  limit: number | undefined,
  scope?: WorkflowScope,
): MonitorFeedItem[] {
  const items = workflowRoots(model, city, undefined, scope).map((root) => {
    const run = recentRun(model, root);
    const at = scopeOf(root, city);
    const item: MonitorFeedItem & { rank: number } = {
      id: root.id,
      type: 'formula',
      title: root.title,
      status: run.status === 'completed' ? 'done' : run.status,
      target: run.target,
      scope_kind: at.kind,
      scope_ref: at.ref,
      started_at: run.started_at,
      updated_at: run.updated_at,
      workflow_id: root.id,
      root_bead_id: root.id,
      logical_bead_id: root.id,
      root_store_ref: `${at.kind}:${at.ref}`,
      run_detail_available: true,
      rank: FEED_RANK.indexOf(run.status as RunStatus),
    };
    return item;
  });
  items.sort((a, b) => a.rank - b.rank || cmp(b.updated_at, a.updated_at) || cmp(a.id, b.id));
  const n = limit === undefined || limit === 0 ? 50 : Math.min(limit, 500);
  return items.slice(0, n).map(({ rank: _rank, ...i }) => i);
}

const FEED_RANK: RunStatus[] = ['active', 'pending', 'failed', 'completed', 'skipped'];
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
