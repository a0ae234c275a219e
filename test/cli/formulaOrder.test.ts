import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { AGENT_SERVICE } from '../../actors/agents/agentApi.ts';
import { OrderService } from '../../actors/orders/orderService.ts';
import { ORDER_SERVICE } from '../../actors/orders/startOrderService.ts';
import { formulaHarness, REVIEW, type FormulaHarness } from '../formulas/helpers.ts';
import { RecordingAgents } from '../helpers/recordingAgents.ts';
import { isolatedEnv, jsonLines, runGc } from './helpers/gc.ts';

/**
 * `gc formula …`, `gc order …` and `gc sling` (the built binary) against the real routes of a city with a
 * bead store, formulas, orders (ticked by hand on a simulated clock) and an agent list: what each prints,
 * what it wrote, and its refusals as one line on stderr.
 */

t.setTimeout(5 * 60_000);

const T0 = Date.parse('2030-01-01T00:00:00Z');

async function setup(t: Test): Promise<{ h: FormulaHarness; svc: OrderService; env: NodeJS.ProcessEnv }> {
  const h = await formulaHarness(t);
  await h.formula('mol-review.toml', REVIEW);
  await mkdir(join(h.dir, 'orders'));
  await writeFile(
    join(h.dir, 'orders', 'nightly.toml'),
    '[order]\nformula = "mol-review"\ngate = "cron"\nschedule = "0 3 * * *"\npool = "worker"\n',
  );
  await writeFile(
    join(h.dir, 'orders', 'ping.toml'),
    '[order]\nexec = "echo pong"\ngate = "cooldown"\ninterval = "1m"\n',
  );
  const svc = new OrderService(h.name, h.dir, h.beads.service, h.formulas, h.log, {
    clock: () => T0 + 10_000,
    tickMs: 0,
    exec: () => Promise.resolve({ code: 0, stdout: 'pong', stderr: '' }),
  });
  await svc.start();
  t.teardown(() => svc.stop());
  const agents = Object.assign(new RecordingAgents(), {
    templates: () => [{ qualified: 'worker' }, { qualified: 'mayor' }],
  });
  h.attach({ [ORDER_SERVICE]: svc, [AGENT_SERVICE]: agents });
  const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
  const home = await mkdtemp(join(tmpdir(), 'gc-cli-orders-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  return { h, svc, env: isolatedEnv(home, { GC_API: url, GC_CITY: h.name }) };
}

const failure = (r: { code: number | null; stdout: string; stderr: string }) => [r.code, r.stdout, r.stderr];

t.test('formula list, show, preview and cook', async (t) => {
  const { h, env } = await setup(t);
  const table = await runGc(['formula', 'list'], { env });
  t.equal(table.code, 0, table.stderr);
  t.equal(
    table.stdout,
    'NAME        VARS          DESCRIPTION\nmol-review  mode,target*  Review {{target}}\n',
  );
  t.match(jsonLines((await runGc(['formula', 'list', '--json'], { env })).stdout), [{ name: 'mol-review' }]);
  const show = await runGc(['formula', 'show', 'mol-review'], { env });
  t.match(jsonLines(show.stdout), [{ name: 'mol-review', steps: [{ title: 'Read {{target}}' }] }]);
  const preview = await runGc(
    ['formula', 'preview', 'mol-review', '--var', 'target=PR-1', '--var', 'mode=full'],
    {
      env,
    },
  );
  t.equal(preview.code, 0, preview.stderr);
  const [detail] = jsonLines(preview.stdout) as { preview: { nodes: { title: string }[] } }[];
  t.same(
    detail!.preview.nodes.map((n) => n.title),
    ['Read PR-1', 'Lint (full)', 'Test', 'Report on PR-1'],
  );
  t.equal((await h.events()).length, 0, 'a preview writes nothing');
  const cook = await runGc(['formula', 'cook', 'mol-review', '--var', 'target=PR-2', '--target', 'worker'], {
    env,
  });
  t.equal(cook.code, 0, cook.stderr);
  const [cooked] = jsonLines(cook.stdout) as { workflow_id: string; bead_ids: string[] }[];
  t.equal(cooked!.bead_ids.length, 4);
  t.equal(h.beads.service.model.beads.get(cooked!.workflow_id)?.bead.metadata?.['gc.routed_to'], 'worker');
  t.same(failure(await runGc(['formula', 'cook', 'mol-review'], { env })), [
    1,
    '',
    'gc formula cook: missing_variable: missing required variable target (body.vars.target: missing required variable target)\n',
  ]);
  t.same(failure(await runGc(['formula', 'show', 'nope'], { env })), [
    1,
    '',
    'gc formula show: not_found: formula nope not found\n',
  ]);
  t.same(failure(await runGc(['formula', 'preview', 'mol-review', '--var', 'oops'], { env })), [
    1,
    '',
    'gc formula preview: --var "oops": expected key=value\n',
  ]);
});

t.test('order list, check, disable/enable and history', async (t) => {
  const { svc, env } = await setup(t);
  const list = await runGc(['order', 'list'], { env });
  t.equal(list.code, 0, list.stderr);
  t.equal(
    list.stdout,
    [
      'NAME     TYPE     TRIGGER   WHEN       ENABLED  RUNS',
      'nightly  formula  cron      0 3 * * *  yes      mol-review',
      'ping     exec     cooldown  1m         yes      echo pong',
      '',
    ].join('\n'),
  );
  const check = await runGc(['order', 'check', '--json'], { env });
  t.same(
    jsonLines(check.stdout).map((c) => [c.scoped_name, c.due, c.reason]),
    [
      ['nightly', false, 'cron: schedule not matched'],
      ['ping', true, 'never run'],
    ],
  );
  t.same(jsonLines((await runGc(['order', 'disable', 'ping'], { env })).stdout), [{ status: 'disabled' }]);
  t.match((await runGc(['order', 'check'], { env })).stdout, /\nping +no +disabled +- +-\n/);
  t.same(jsonLines((await runGc(['order', 'enable', 'ping'], { env })).stdout), [{ status: 'enabled' }]);
  t.equal(await svc.tick(), 1);
  await svc.stop();
  const history = await runGc(['order', 'history', 'ping', '--output'], { env });
  t.equal(history.code, 0, history.stderr);
  t.match(jsonLines(history.stdout), [
    {
      scoped_name: 'ping',
      labels: ['order-run:ping', 'order-tracking', 'exec'],
      exit_code: '0',
      output: 'pong',
    },
  ]);
  t.same(failure(await runGc(['order', 'enable', 'nope'], { env })), [
    1,
    '',
    'gc order enable: not_found: order nope not found\n',
  ]);
  t.same(failure(await runGc(['order', 'history'], { env })), [
    1,
    '',
    'gc order history: missing required argument <name>; see "gc order history --help"\n',
  ]);
});

t.test('sling a bead or a formula; refusals are one line', async (t) => {
  const { h, env } = await setup(t);
  const { id } = (await h.beads.service.create({ title: 'fix' })).bead;
  const direct = await runGc(['sling', 'worker', id], { env });
  t.equal(direct.code, 0, direct.stderr);
  t.same(jsonLines(direct.stdout), [{ status: 'slung', target: 'worker', mode: 'direct', bead: id }]);
  const launch = await runGc(
    ['sling', 'worker', '--formula', 'mol-review', '--var', 'target=PR-9', '--attach', id],
    {
      env,
    },
  );
  t.equal(launch.code, 0, launch.stderr);
  t.match(jsonLines(launch.stdout), [{ mode: 'attached', attached_bead_id: id, formula: 'mol-review' }]);
  t.same(failure(await runGc(['sling', 'worker'], { env })), [
    1,
    '',
    'gc sling: nothing to sling: pass a <bead> or --formula <name>\n',
  ]);
  t.same(failure(await runGc(['sling', 'ghost', id], { env })), [
    1,
    '',
    'gc sling: not_found: target ghost not found\n',
  ]);
});
