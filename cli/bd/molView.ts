import type { WorkflowBead, WorkflowSnapshot } from '../../schemas/formulas.ts';

/** A molecule's step: the workflow bead and the IDs of the steps it waits for. */
export interface MolStep extends WorkflowBead {
  needs: string[];
  /** Whether every step it waits for is closed. */
  unblocked: boolean;
}

/** A molecule as bd's mol commands print it: the root, its steps in cook order, counts. */
export interface MolView {
  root: WorkflowBead;
  formula: string | undefined;
  steps: MolStep[];
  completed: number;
  /** The first in-progress step, else the first ready one. */
  current: string | undefined;
}

/** The view of a workflow snapshot (root first, as GET /workflow answers). This is a pure function. */
export function molView(snap: WorkflowSnapshot): MolView {
  const beads = snap.beads ?? [];
  const root = beads.find((b) => b.id === snap.root_bead_id) ?? beads[0]!;
  const status = new Map(beads.map((b) => [b.id, b.status]));
  const steps: MolStep[] = beads
    .filter((b) => b.id !== root.id)
    .map((b) => {
      const needs = (snap.deps ?? []).filter((d) => d.to === b.id && d.from !== root.id).map((d) => d.from);
      return { ...b, needs, unblocked: needs.every((n) => status.get(n) === 'closed') };
    });
  const current =
    steps.find((s) => s.status === 'in_progress') ?? steps.find((s) => stepMarker(s) === 'ready');
  return {
    root,
    formula: root.metadata['gc.formula_name'],
    steps,
    completed: steps.filter((s) => s.status === 'closed').length,
    current: current?.id,
  };
}

/**
 * bd's marker of a step: `done` (closed), `current` (in progress), `blocked` (status blocked), `ready`
 * (open, everything it needs closed), else `pending` (waiting for a step before it). Pure.
 */
export function stepMarker(s: MolStep): 'done' | 'current' | 'blocked' | 'ready' | 'pending' {
  if (s.status === 'closed') return 'done';
  if (s.status === 'in_progress') return 'current';
  if (s.status === 'blocked') return 'blocked';
  return s.status === 'open' && s.unblocked ? 'ready' : 'pending';
}
