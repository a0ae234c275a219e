import {
  accept,
  acceptAll,
  beadEvent,
  BeadEventType,
  compactBead,
  type EventContext,
  formatId,
  type Outcome,
  ROOT_KEY,
  type BeadModel,
  type StoredBead,
} from '../beads/index.ts';
import { RetryKey } from './retry.ts';

/** Metadata the run-time half of `retry` writes (upstream's keys). */
export const RetryRunKey = {
  Outcome: 'gc.outcome',
  FailureClass: 'gc.failure_class',
  FailureReason: 'gc.failure_reason',
  FailedAttempt: 'gc.failed_attempt',
  FinalDisposition: 'gc.final_disposition',
  AttemptLog: 'gc.attempt_log',
  OutputJson: 'gc.output_json',
  RetryFrom: 'gc.retry_from',
  StepRef: 'gc.step_ref',
} as const;

/** What processing a retry control bead did (upstream's action words). */
export type RetryAction = 'pass' | 'hard-fail' | 'retry' | 'soft-fail' | 'fail' | 'pending' | 'noop';

/** How a closed attempt ended, by upstream's worker result contract. */
export interface AttemptResult {
  outcome: 'pass' | 'transient' | 'hard';
  reason?: string;
}

const INVALID = 'invalid_worker_result_contract';

/**
 * Upstream's worker result contract for a retry-managed attempt, fail-closed: `gc.outcome=pass` with no
 * failure class or reason passes; `gc.outcome=fail` with `gc.failure_class=transient` is transient (the
 * budget decides), with `hard` or none is hard; anything else (a bare close, an unknown class, a pass
 * that names a failure) is hard with reason `invalid_worker_result_contract`. Pure.
 */
export function classifyAttempt(attempt: StoredBead): AttemptResult {
  const meta = attempt.metadata ?? {};
  const outcome = (meta[RetryRunKey.Outcome] ?? '').trim();
  const failureClass = (meta[RetryRunKey.FailureClass] ?? '').trim();
  const reason = (meta[RetryRunKey.FailureReason] ?? '').trim() || 'unspecified';
  if (outcome === 'pass')
    return failureClass || (meta[RetryRunKey.FailureReason] ?? '').trim()
      ? { outcome: 'hard', reason: INVALID }
      : { outcome: 'pass' };
  if (outcome !== 'fail') return { outcome: 'hard', reason: INVALID };
  if (failureClass === 'transient') return { outcome: 'transient', reason };
  if (failureClass === 'hard' || failureClass === '') return { outcome: 'hard', reason };
  return { outcome: 'hard', reason: INVALID };
}

/** Kinds that are control machinery, never an attempt (upstream's list). */
const NOT_ATTEMPTS = new Set([
  'scope-check',
  'workflow-finalize',
  'fanout',
  'check',
  'retry-eval',
  'retry',
  'ralph',
  'workflow',
  'scope',
  'spec',
]);

/** The ref a control's attempts are named from: its `gc.step_ref`, else its id. */
const controlRefOf = (control: StoredBead): string => control.metadata?.[RetryRunKey.StepRef] || control.id;

/**
 * The latest attempt of retry control `control`: among the beads of its workflow, the one whose
 * `gc.step_ref` is `<control ref>.attempt.<n>` (or `<gc.step_id>.attempt.<n>`) with the highest `gc.attempt`.
 * Pure.
 */
export function latestAttempt(model: Readonly<BeadModel>, control: StoredBead): StoredBead | undefined {
  const rootId = control.metadata?.[ROOT_KEY] ?? control.id;
  const prefixes = [`${controlRefOf(control)}.attempt.`];
  const stepId = control.metadata?.[RetryKey.StepId];
  if (stepId) prefixes.push(`${stepId}.attempt.`);
  let latest: StoredBead | undefined;
  let best = 0;
  for (const id of model.indexes.roots.get(rootId) ?? []) {
    const bead = model.beads.get(id)?.bead;
    if (!bead || NOT_ATTEMPTS.has(bead.metadata?.[RetryKey.Kind] ?? '')) continue;
    const ref = bead.metadata?.[RetryRunKey.StepRef] ?? '';
    if (!prefixes.some((p) => ref.startsWith(p))) continue;
    const n = Number.parseInt(bead.metadata?.[RetryKey.Attempt] ?? '', 10);
    if (Number.isInteger(n) && n > best) {
      best = n;
      latest = bead;
    }
  }
  return latest;
}

/** True for an open retry control bead (`gc.kind=retry`). Pure. */
export const isRetryControl = (bead: StoredBead): boolean =>
  bead.metadata?.[RetryKey.Kind] === 'retry' && bead.status === 'open';

/** Keys a later attempt does not inherit from the one before (upstream's retry ephemera). */
const EPHEMERA = [
  'gc.outcome',
  'gc.exit_code',
  'gc.stdout',
  'gc.stderr',
  'gc.output_json',
  'gc.duration_ms',
  'gc.truncated',
  'gc.terminal',
  'gc.failed_attempt',
  'gc.fanout_state',
  'gc.spawned_count',
  'gc.retry_state',
  'gc.next_attempt',
  'gc.partial_retry',
  'gc.failure_class',
  'gc.failure_reason',
  'gc.final_disposition',
  'gc.closed_by_attempt',
  'gc.last_failure_class',
  'gc.retry_session_recycled',
  'review.verdict',
  'design_review.verdict',
  'code_review.verdict',
  'gc.idempotency_key',
];

/**
 * Processes retry control bead `controlId` as upstream's control dispatcher does once its latest attempt
 * has closed. The attempt is classified ({@link classifyAttempt}) and the decision appended to the control's
 * `gc.attempt_log` (JSON list of `{action, attempt, outcome, reason?}`), then:
 * - pass: the attempt's `gc.output_json` and its metadata outside `gc.*` are copied to the control, which
 *   closes with `gc.outcome=pass`;
 * - hard: the control closes with `gc.outcome=fail`, `gc.failure_class=hard`, `gc.failed_attempt`,
 *   `gc.failure_reason`, `gc.final_disposition=hard_fail`;
 * - transient with budget left (`gc.attempt < gc.max_attempts`): attempt n+1 is created from attempt n
 *   (same title, description, type, labels but `pool:*`, metadata without the result keys; `gc.attempt`,
 *   `gc.step_ref=<ref>.attempt.<n+1>`, `gc.retry_from`); a routed attempt (`gc.routed_to`) is left
 *   unassigned so a fresh pool worker takes it. The control then waits for it (a `blocks` dependency) with
 *   `gc.control_epoch` one up, and stays open;
 * - transient, budget spent: `on_exhausted = soft_fail` closes the control with `gc.outcome=pass`, otherwise
 *   with `gc.outcome=fail`; either way with `gc.failure_class=transient`, `gc.failed_attempt`,
 *   `gc.failure_reason` and `gc.final_disposition` (`soft_fail` / `hard_fail`).
 * A control that is not open, or whose latest attempt is not closed yet, changes nothing (`noop`,
 * `pending`). One decision, one batch. Pure.
 */
export function retryControlDecider(controlId: string) {
  return (
    model: Readonly<BeadModel>,
    ctx: EventContext,
  ): Outcome<{ action: RetryAction; created?: string }> => {
    const control = model.beads.get(controlId)?.bead;
    if (!control || !isRetryControl(control)) return accept({ action: 'noop' });
    const attempt = latestAttempt(model, control);
    if (!attempt || attempt.status !== 'closed') return accept({ action: 'pending' });
    const meta = control.metadata ?? {};
    const max = Number.parseInt(meta[RetryKey.MaxAttempts] ?? '', 10);
    const n = Number.parseInt(attempt.metadata?.[RetryKey.Attempt] ?? '', 10);
    if (!(max >= 1) || !(n >= 1)) return accept({ action: 'noop' });
    const result = classifyAttempt(attempt);
    const next: Record<string, string> = {
      ...meta,
      [RetryRunKey.AttemptLog]: appendLog(meta[RetryRunKey.AttemptLog], n, result),
    };
    const close = (outcome: 'pass' | 'fail', action: RetryAction) =>
      acceptAll({ action }, [
        beadEvent(
          BeadEventType.Closed,
          compactBead({
            ...control,
            status: 'closed',
            updated_at: ctx.now,
            metadata: { ...next, [RetryRunKey.Outcome]: outcome },
          }),
          ctx,
        ),
      ]);
    const failed = (failureClass: string, disposition: string) =>
      Object.assign(next, {
        [RetryRunKey.FailedAttempt]: String(n),
        [RetryRunKey.FailureClass]: failureClass,
        [RetryRunKey.FailureReason]: result.reason ?? '',
        [RetryRunKey.FinalDisposition]: disposition,
      });
    if (result.outcome === 'pass') {
      for (const [k, v] of Object.entries(attempt.metadata ?? {}))
        if (k !== '' && !k.startsWith('gc.')) next[k] = v;
      const output = attempt.metadata?.[RetryRunKey.OutputJson];
      if (output) next[RetryRunKey.OutputJson] = output;
      return close('pass', 'pass');
    }
    if (result.outcome === 'hard') {
      failed('hard', 'hard_fail');
      return close('fail', 'hard-fail');
    }
    if (n >= max) {
      const soft = (meta[RetryKey.OnExhausted] || 'hard_fail') === 'soft_fail';
      failed('transient', soft ? 'soft_fail' : 'hard_fail');
      return soft ? close('pass', 'soft-fail') : close('fail', 'fail');
    }
    const id = formatId(model.prefix, model.nextNumber);
    const created = nextAttempt(attempt, controlRefOf(control), id, n + 1, ctx);
    const epoch = Number.parseInt(meta[RetryKey.ControlEpoch] ?? '', 10);
    next[RetryKey.ControlEpoch] = String((Number.isInteger(epoch) ? epoch : 0) + 1);
    const waiting = compactBead({
      ...control,
      updated_at: ctx.now,
      metadata: next,
      dependencies: [
        ...(control.dependencies ?? []),
        { issue_id: control.id, depends_on_id: id, type: 'blocks' },
      ],
    });
    return acceptAll({ action: 'retry', created: id }, [
      beadEvent(BeadEventType.Created, created, ctx),
      beadEvent(BeadEventType.Updated, waiting, ctx),
    ]);
  };
}

function nextAttempt(prev: StoredBead, controlRef: string, id: string, n: number, ctx: EventContext) {
  const meta: Record<string, string> = { ...prev.metadata };
  for (const k of EPHEMERA) delete meta[k];
  const ref = `${controlRef}.attempt.${n}`;
  Object.assign(meta, {
    [RetryKey.Attempt]: String(n),
    [RetryRunKey.RetryFrom]: prev.id,
    [RetryRunKey.StepRef]: ref,
  });
  const routed = Boolean(meta['gc.routed_to']);
  return compactBead({
    id,
    title: prev.title,
    status: 'open',
    issue_type: prev.issue_type,
    created_at: ctx.now,
    updated_at: ctx.now,
    description: prev.description,
    ...(routed || !prev.assignee ? {} : { assignee: prev.assignee }),
    ...(prev.priority !== undefined ? { priority: prev.priority } : {}),
    labels: (prev.labels ?? []).filter((l) => !l.startsWith('pool:')),
    metadata: meta,
    ...(prev.parent ? { parent: prev.parent } : {}),
    ref,
  });
}

function appendLog(raw: string | undefined, attempt: number, result: AttemptResult): string {
  let log: unknown[] = [];
  try {
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    if (Array.isArray(parsed)) log = parsed;
  } catch {
    log = [];
  }
  const action = { pass: 'close', hard: 'hard-fail', transient: 'retry' }[result.outcome];
  // Upstream marshals a Go map: keys in sorted order.
  const entry: Record<string, string> = { action, attempt: String(attempt), outcome: result.outcome };
  if (result.reason) entry.reason = result.reason;
  return JSON.stringify([...log, entry]);
}
