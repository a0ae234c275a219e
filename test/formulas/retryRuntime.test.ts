/**
 * Formula `retry` at run time, as upstream's control dispatcher runs a `gc.kind=retry` control bead
 * (internal/dispatch/control.go processRetryControl, gascity a46ccb1): a closed attempt is classified by
 * the worker result contract; a transient failure with budget left appends the next attempt, an exhausted
 * one hard- or soft-fails the step as `on_exhausted` says; a hard failure fails it at once; a pass closes
 * it with the attempt's output.
 */
import t, { type Test } from 'tap';
import type { StoredBead } from '../../machines/beads/index.ts';
import { classifyAttempt } from '../../machines/formulas/retryControl.ts';
import { RetryController } from '../../actors/formulas/retryController.ts';
import { formulaServiceFactory } from '../../actors/formulas/index.ts';
import { until } from '../helpers/until.ts';
import { formulaHarness, type FormulaHarness } from './helpers.ts';

const FORMULA = (onExhausted: string) => `formula = "mol-flaky"
version = 2
[[steps]]
id = "fetch"
title = "Fetch"
description = "fetch it"
assignee = "worker"
[steps.metadata]
"gc.routed_to" = "rig/polecat"
[steps.retry]
max_attempts = 2
on_exhausted = "${onExhausted}"
[[steps]]
id = "report"
title = "Report"
needs = ["fetch"]
`;

async function cooked(t: Test, onExhausted = 'hard_fail') {
  const h = await formulaHarness(t);
  await h.formula('mol-flaky.toml', FORMULA(onExhausted));
  const { beads } = await h.formulas.cook('mol-flaky');
  const byRef = (ref: string) => h.beads.service.model.beads.get(beads.find((b) => b.ref === ref)!.id)!.bead;
  const controller = new RetryController(h.beads.service);
  return { h, byRef, controller };
}

const bead = (h: FormulaHarness, id: string): StoredBead => h.beads.service.model.beads.get(id)!.bead;
const finish = (h: FormulaHarness, id: string, metadata: Record<string, string>) =>
  h.beads.service.update(id, { status: 'closed', metadata });

t.test('a transient failure with budget left appends attempt 2, routed afresh', async (t) => {
  const { h, byRef, controller } = await cooked(t);
  const control = byRef('mol-flaky.fetch');
  const first = byRef('mol-flaky.fetch.attempt.1');
  await controller.sweep();
  t.equal(bead(h, control.id).status, 'open', 'nothing happens while the attempt is open');
  await finish(h, first.id, {
    'gc.outcome': 'fail',
    'gc.failure_class': 'transient',
    'gc.failure_reason': 'rate_limited',
  });
  await controller.sweep();
  const c = bead(h, control.id);
  t.equal(c.status, 'open', 'the step waits for its next attempt');
  const second = [...h.beads.service.model.beads.values()]
    .map((e) => e.bead)
    .find((b) => b.metadata?.['gc.step_ref'] === 'mol-flaky.fetch.attempt.2')!;
  t.ok(second, 'attempt 2 exists');
  t.match(second, {
    status: 'open',
    title: 'Fetch',
    description: 'fetch it',
    ref: 'mol-flaky.fetch.attempt.2',
    parent: first.parent,
    metadata: {
      'gc.attempt': '2',
      'gc.retry_from': first.id,
      'gc.step_id': 'fetch',
      'gc.routed_to': 'rig/polecat',
      'gc.root_bead_id': first.metadata!['gc.root_bead_id'],
    },
  });
  t.equal(second.assignee, undefined, 'a routed attempt goes to a fresh worker of the pool');
  t.equal(second.metadata!['gc.outcome'], undefined, 'the last result is not inherited');
  t.ok(c.dependencies?.some((d) => d.depends_on_id === second.id && d.type === 'blocks'));
  t.equal(c.metadata!['gc.control_epoch'], '2');
  t.same(JSON.parse(c.metadata!['gc.attempt_log']!), [
    { action: 'retry', attempt: '1', outcome: 'transient', reason: 'rate_limited' },
  ]);
  await controller.sweep();
  t.equal(
    [...h.beads.service.model.beads.values()].filter((e) => e.bead.ref?.includes('.attempt.')).length,
    2,
    'a second sweep appends nothing more',
  );
  t.equal(bead(h, byRef('mol-flaky.report').id).status, 'open');

  // Attempt 2 fails transiently too: the budget (2) is spent, hard_fail fails the step.
  await finish(h, second.id, { 'gc.outcome': 'fail', 'gc.failure_class': 'transient' });
  await controller.sweep();
  t.match(bead(h, control.id), {
    status: 'closed',
    metadata: {
      'gc.outcome': 'fail',
      'gc.failure_class': 'transient',
      'gc.failed_attempt': '2',
      'gc.failure_reason': 'unspecified',
      'gc.final_disposition': 'hard_fail',
    },
  });
});

t.test('on_exhausted = soft_fail: the exhausted step passes, marked soft_fail', async (t) => {
  const { h, byRef, controller } = await cooked(t, 'soft_fail');
  const control = byRef('mol-flaky.fetch');
  await finish(h, byRef('mol-flaky.fetch.attempt.1').id, {
    'gc.outcome': 'fail',
    'gc.failure_class': 'transient',
  });
  await controller.sweep();
  const second = [...h.beads.service.model.beads.values()].find(
    (e) => e.bead.ref === 'mol-flaky.fetch.attempt.2',
  )!.bead;
  await finish(h, second.id, { 'gc.outcome': 'fail', 'gc.failure_class': 'transient' });
  await controller.sweep();
  t.match(bead(h, control.id), {
    status: 'closed',
    metadata: { 'gc.outcome': 'pass', 'gc.final_disposition': 'soft_fail', 'gc.failed_attempt': '2' },
  });
  const report = bead(h, byRef('mol-flaky.report').id);
  t.equal(h.beads.service.model.beads.get(report.id)!.bead.status, 'open');
  const ready = await h.app.inject({ method: 'GET', url: `${h.base}/beads/ready` });
  t.ok(
    ready.json().items.some((b: { id: string }) => b.id === report.id),
    'the next step is ready once the step soft-failed',
  );
});

t.test('a hard failure fails the step at once; a pass closes it with the output', async (t) => {
  const hard = await cooked(t);
  await finish(hard.h, hard.byRef('mol-flaky.fetch.attempt.1').id, {
    'gc.outcome': 'fail',
    'gc.failure_class': 'hard',
    'gc.failure_reason': 'bad_input',
  });
  await hard.controller.sweep();
  t.match(bead(hard.h, hard.byRef('mol-flaky.fetch').id), {
    status: 'closed',
    metadata: {
      'gc.outcome': 'fail',
      'gc.failure_class': 'hard',
      'gc.failure_reason': 'bad_input',
      'gc.final_disposition': 'hard_fail',
      'gc.failed_attempt': '1',
    },
  });
  t.notOk(
    [...hard.h.beads.service.model.beads.values()].some((e) => e.bead.ref === 'mol-flaky.fetch.attempt.2'),
    'no retry after a hard failure',
  );

  const pass = await cooked(t);
  await finish(pass.h, pass.byRef('mol-flaky.fetch.attempt.1').id, {
    'gc.outcome': 'pass',
    'gc.output_json': '{"n":1}',
    'review.verdict': 'ok',
  });
  await pass.controller.sweep();
  t.match(bead(pass.h, pass.byRef('mol-flaky.fetch').id), {
    status: 'closed',
    metadata: { 'gc.outcome': 'pass', 'gc.output_json': '{"n":1}', 'review.verdict': 'ok' },
  });
});

t.test('the worker result contract is fail-closed, as upstream classifies it', async (t) => {
  const of = (metadata: Record<string, string>) =>
    classifyAttempt({ id: 'x', title: '', status: 'closed', issue_type: 'task', created_at: '', metadata });
  t.same(of({ 'gc.outcome': 'pass' }), { outcome: 'pass' });
  t.same(of({}), { outcome: 'hard', reason: 'invalid_worker_result_contract' }, 'a bare close');
  t.same(of({ 'gc.outcome': 'pass', 'gc.failure_reason': 'x' }), {
    outcome: 'hard',
    reason: 'invalid_worker_result_contract',
  });
  t.same(of({ 'gc.outcome': 'fail' }), { outcome: 'hard', reason: 'unspecified' });
  t.same(of({ 'gc.outcome': 'fail', 'gc.failure_class': 'weird' }), {
    outcome: 'hard',
    reason: 'invalid_worker_result_contract',
  });
});

t.test('the formulas service runs the controller: a failed attempt is retried unprompted', async (t) => {
  const h = await formulaHarness(t);
  await h.formula('mol-flaky.toml', FORMULA('hard_fail'));
  const started = await formulaServiceFactory.start({
    name: h.name,
    path: h.dir,
    journal: h.journal,
    started: { beads: h.beads.service },
  } as never);
  t.teardown(() => started.stop());
  const { beads } = await started.service.cook('mol-flaky');
  const first = beads.find((b) => b.ref === 'mol-flaky.fetch.attempt.1')!;
  await finish(h, first.id, { 'gc.outcome': 'fail', 'gc.failure_class': 'transient' });
  const second = await until(
    'attempt 2',
    async () =>
      [...h.beads.service.model.beads.values()].find((e) => e.bead.ref === 'mol-flaky.fetch.attempt.2')?.bead,
    5000,
    20,
  );
  t.equal(second.metadata?.['gc.attempt'], '2');
  const events = await h.events();
  t.equal(events.find((e) => e.subject === second.id)?.actor, 'control-dispatcher');
});
