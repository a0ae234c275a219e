import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SCAFFOLD_STEPS, type ScaffoldStep } from '../../actors/supervisor/scaffoldSteps.ts';
import { startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

/**
 * Every scaffold step of `POST /v0/city` runs under one deadline. A step that never finishes (a hung
 * mount, a wedged disk) is injected through the supervisor's step hook: the create must answer a precise
 * 503, release its claim, and leave nothing registered, so the next create of that directory proceeds.
 */

// Long enough for the real steps on a loaded machine; each hung step costs one deadline.
const STEP_TIMEOUT_MS = 1000;

t.test('a scaffold step that never finishes fails the create and releases its claim', async (t) => {
  const hung = new Set<ScaffoldStep>();
  const s = await startTestSupervisor(t, {
    options: {
      scaffoldStepTimeoutMs: STEP_TIMEOUT_MS,
      beforeScaffoldStep: (step) => (hung.has(step) ? new Promise<never>(() => undefined) : undefined),
    },
  });
  const steps = SCAFFOLD_STEPS.filter((step) => step !== 'undo');
  t.ok(steps.length >= 6, 'resolve, check, directory, city.toml, .gc, registry and log are all steps');
  for (const [i, step] of steps.entries()) {
    const dir = join(s.root, `city${i}`);
    hung.clear();
    hung.add(step);
    const res = await s.call('POST', '/v0/city', { dir, start_command: 'x' });
    t.equal(res.status, 503, `${step}: 503`);
    t.equal(
      res.body.detail,
      `scaffold_timeout: creating city at ${dir}: step "${step}" did not finish within ${STEP_TIMEOUT_MS} ms`,
      `${step}: detail`,
    );
    t.equal(s.running.supervisor.claims.size, 0, `${step}: the claim is released`);
    t.notOk(existsSync(dir), `${step}: the directory it created is gone`);
    t.notOk(s.running.supervisor.registry.get(`city${i}`), `${step}: not registered`);

    hung.clear();
    const again = await s.call('POST', '/v0/city', { dir, start_command: 'x' });
    t.equal(
      again.status,
      202,
      `${step}: the next create of that directory proceeds (no 409): ${again.body?.detail}`,
    );
    t.equal((await waitForTerminal(s.log, again.body.request_id)).type, 'request.result.city.create');
  }
  t.notOk(
    (await s.log.list()).some((e) => e.type === 'request.failed'),
    'a create refused before its acceptance records no request',
  );
  t.match(readFileSync(join(s.gcHome, 'cities.toml'), 'utf8'), /city0/);
});

t.test('an undo that never finishes does not hold the create either', async (t) => {
  const hung = new Set<ScaffoldStep>(['create log', 'undo']);
  const s = await startTestSupervisor(t, {
    options: {
      scaffoldStepTimeoutMs: STEP_TIMEOUT_MS,
      beforeScaffoldStep: (step) => (hung.has(step) ? new Promise<never>(() => undefined) : undefined),
    },
  });
  const dir = join(s.root, 'stuck');
  const res = await s.call('POST', '/v0/city', { dir, start_command: 'x' });
  t.equal(res.status, 503);
  t.match(res.body.detail, /^scaffold_timeout: creating city at .*: step "create log" did not finish/);
  t.equal(s.running.supervisor.claims.size, 0, 'the claim is released');
});
