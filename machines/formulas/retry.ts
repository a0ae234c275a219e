import type { FormulaStepDef } from './formula.ts';

/** Metadata keys of a retry-managed step's beads (upstream's). */
export const RetryKey = {
  Kind: 'gc.kind',
  StepId: 'gc.step_id',
  MaxAttempts: 'gc.max_attempts',
  OnExhausted: 'gc.on_exhausted',
  ControlEpoch: 'gc.control_epoch',
  OriginalKind: 'gc.original_kind',
  Attempt: 'gc.attempt',
  SpecFor: 'gc.spec_for',
  SpecForRef: 'gc.spec_for_ref',
} as const;

/** Keys an attempt does not inherit from its step (they belong to the control bead's place in a scope). */
const NOT_ON_ATTEMPT = ['gc.scope_ref', 'gc.scope_role', 'gc.on_fail'];

/**
 * Upstream's expansion of retry-managed steps (`ApplyRetries`), after condition filtering: a step with
 * `retry` becomes three, in this order:
 * - the control bead, keeping the step's id (so steps that need it still wait for it), metadata
 *   `gc.kind=retry`, `gc.step_id`, `gc.max_attempts`, `gc.on_exhausted` (default `hard_fail`),
 *   `gc.control_epoch=1`, no assignee, and needing the first attempt as well as the step's own needs;
 * - `<id>.spec`, type `spec`, the original step as JSON in its description (what a later attempt is
 *   made from), `gc.kind=spec`, `gc.spec_for`/`gc.spec_for_ref` = the id;
 * - `<id>.attempt.1`, the work itself: the step's fields with `gc.attempt=1`, `gc.step_id`.
 * An existing `gc.kind` is kept on both as `gc.original_kind`. Other steps are unchanged. Pure.
 */
export function expandRetries(steps: readonly FormulaStepDef[]): FormulaStepDef[] {
  return steps.flatMap((step) => (step.retry ? expandOne(step) : [step]));
}

function expandOne(step: FormulaStepDef): FormulaStepDef[] {
  const retry = step.retry!;
  const attemptId = `${step.id}.attempt.1`;
  const original = step.metadata[RetryKey.Kind];
  const kept: Record<string, string> = original ? { [RetryKey.OriginalKind]: original } : {};
  const { retry: _retry, assignee: _assignee, ...plain } = step;
  const control: FormulaStepDef = {
    ...plain,
    metadata: {
      ...step.metadata,
      [RetryKey.Kind]: 'retry',
      [RetryKey.StepId]: step.id,
      [RetryKey.MaxAttempts]: String(retry.max_attempts),
      [RetryKey.OnExhausted]: retry.on_exhausted ?? 'hard_fail',
      [RetryKey.ControlEpoch]: '1',
      ...kept,
    },
    needs: [...new Set([...step.needs, attemptId])],
  };
  const spec: FormulaStepDef = {
    id: `${step.id}.spec`,
    title: `Step spec for ${step.title}`,
    type: 'spec',
    description: specJson(step),
    tags: [],
    metadata: { [RetryKey.Kind]: 'spec', [RetryKey.SpecFor]: step.id, [RetryKey.SpecForRef]: step.id },
    needs: [],
    line: step.line,
  };
  const attemptMeta: Record<string, string> = {
    ...step.metadata,
    [RetryKey.Attempt]: '1',
    [RetryKey.StepId]: step.id,
    ...kept,
  };
  for (const k of NOT_ON_ATTEMPT) delete attemptMeta[k];
  const { retry: _r, ...work } = step;
  const attempt: FormulaStepDef = { ...work, id: attemptId, metadata: attemptMeta };
  return [control, spec, attempt];
}

/** The step as upstream serialises it into the spec bead (its JSON field names). */
function specJson(step: FormulaStepDef): string {
  const out: Record<string, unknown> = { id: step.id, title: step.title };
  if (step.description) out.description = step.description;
  if (step.type) out.type = step.type;
  if (step.priority !== undefined) out.priority = step.priority;
  if (step.tags.length > 0) out.labels = step.tags;
  if (Object.keys(step.metadata).length > 0) out.metadata = step.metadata;
  if (step.needs.length > 0) out.needs = step.needs;
  if (step.assignee) out.assignee = step.assignee;
  if (step.condition) out.condition = step.condition;
  out.retry = step.retry;
  return JSON.stringify(out);
}
