import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { AGENT_SERVICE } from '../../actors/agents/agentApi.ts';
import { gitDefaultBranch } from '../../actors/sling/defaultBranch.ts';
import { slingFormulaVars } from '../../machines/sling/slingVars.ts';
import { RecordingAgents } from '../helpers/recordingAgents.ts';
import { formulaHarness } from './helpers.ts';

/**
 * `default_sling_formula` as upstream's sling applies it: a bead slung to an agent that has one gets the
 * formula attached (issue = the bead), answered `direct` (200) without launch options, `attached` (201)
 * with them; `--no-formula` has no API form, as upstream.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
type Json = any;

const WORK = `formula = "mol-polecat-work"\nversion = 2\n[vars]\nissue = { required = true }\nbase_branch = { default = "" }\n[[steps]]\nid = "do"\ntitle = "Work on {{issue}} from {{base_branch}}"\n`;

t.test('sling variables: issue, base_branch and target_branch unless given', async (t) => {
  t.same(slingFormulaVars('mol-polecat-work', 'gc-1', {}, 'trunk'), { issue: 'gc-1', base_branch: 'trunk' });
  t.same(slingFormulaVars('mol-scoped-work', 'gc-1', { issue: 'mine' }, 'trunk'), {
    issue: 'mine',
    base_branch: 'trunk',
  });
  t.same(slingFormulaVars('mol-refinery-patrol', undefined, {}, 'main'), { target_branch: 'main' });
  t.same(slingFormulaVars('mol-do-work', 'gc-2', {}, 'main'), { issue: 'gc-2' });
  t.same(
    slingFormulaVars('mol-polecat-work', 'gc-2', {}, ''),
    { issue: 'gc-2' },
    'no branch known: not added',
  );
});

t.test('the default branch is origin/HEAD’s, empty without one', async (t) => {
  const dir = t.testdir({});
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe' });
  const origin = join(dir, 'origin');
  mkdirSync(origin);
  git(origin, 'init', '-q', '-b', 'trunk');
  git(origin, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'one');
  git(dir, 'clone', '-q', origin, 'clone');
  t.equal(await gitDefaultBranch(join(dir, 'clone')), 'trunk');
  t.equal(await gitDefaultBranch(origin), '', 'a repository without a remote HEAD');
  t.equal(await gitDefaultBranch(join(dir, 'nowhere')), '');
});

t.test('a bead slung to an agent with a default formula gets it attached', async (t) => {
  const h = await formulaHarness(t);
  await h.formula('mol-polecat-work.toml', WORK);
  const agents = Object.assign(new RecordingAgents(), {
    templates: () => [
      { qualified: 'polecat', defaultSlingFormula: 'mol-polecat-work' },
      { qualified: 'mayor' },
    ],
  });
  h.attach({ [AGENT_SERVICE]: agents });
  const url = `${await h.app.listen({ port: 0, host: '127.0.0.1' })}${h.base}/sling`;
  const sling = async (body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const model = () => h.beads.service.model.beads;
  const { id } = (await h.beads.service.create({ title: 'fix it' })).bead;

  const plain = await sling({ target: 'polecat', bead: id });
  t.equal(plain.status, 200, JSON.stringify(plain.body));
  t.same(
    plain.body,
    { status: 'slung', target: 'polecat', mode: 'direct', bead: id },
    'upstream answers direct',
  );
  const workflow = model().get(id)!.bead.metadata?.workflow_id;
  t.ok(workflow, 'the bead points at its workflow');
  const root = model().get(workflow!)!.bead;
  t.match(root.metadata, {
    'gc.formula_name': 'mol-polecat-work',
    'gc.source_bead_id': id,
    'gc.routed_to': 'polecat',
  });
  const step = [...model().values()].find((b) => b.bead.parent === root.id)!.bead;
  t.equal(step.title, `Work on ${id} from `, 'issue filled; the city has no git remote, so no base_branch');

  const { id: other } = (await h.beads.service.create({ title: 'another' })).bead;
  const opts = await sling({
    target: 'polecat',
    bead: other,
    title: 'Polecat run',
    vars: { base_branch: 'dev' },
  });
  t.equal(opts.status, 201, JSON.stringify(opts.body));
  t.match(opts.body, {
    mode: 'attached',
    formula: 'mol-polecat-work',
    bead: other,
    attached_bead_id: other,
    workflow_id: String,
  });
  const root2 = model().get(opts.body.workflow_id)!.bead;
  t.equal(root2.title, 'Polecat run');
  const step2 = [...model().values()].find((b) => b.bead.parent === root2.id)!.bead;
  t.equal(step2.title, `Work on ${other} from dev`);

  const refused = await sling({ target: 'mayor', bead: other, vars: { x: '1' } });
  t.equal(refused.status, 400, 'launch options to an agent without a default formula are refused');
  const again = await sling({ target: 'polecat', bead: id });
  t.equal(again.status, 409, 'the bead already runs the default formula’s workflow');
});
