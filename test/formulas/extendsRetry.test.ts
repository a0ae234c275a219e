/**
 * `extends` and `retry` as upstream's formula compiler applies them, on the formulas that use them: the
 * core pack's mol-polecat-base/-commit and mol-scoped-work and gastown's mol-polecat-work (fixtures at
 * gascity a46ccb1), plus small formulas for the merge rules and the errors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { compileFormula } from '../../machines/formulas/compile.ts';
import { resolveExtends } from '../../machines/formulas/extends.ts';
import type { Formula } from '../../machines/formulas/formula.ts';
import { parseFormula, type ParseResult } from '../../machines/formulas/parseFormula.ts';
import { call, formulaHarness } from './helpers.ts';

const UPSTREAM = join(import.meta.dirname, '..', 'fixtures', 'upstream', 'gascity');
const CORE = join(UPSTREAM, 'internal', 'bootstrap', 'packs', 'core', 'formulas');
const GASTOWN = join(UPSTREAM, 'examples', 'gastown', 'packs', 'gastown', 'formulas');
const core = (name: string) => readFileSync(join(CORE, `${name}.toml`), 'utf8');
const gastown = (name: string) => readFileSync(join(GASTOWN, `${name}.toml`), 'utf8');

const parse = (name: string, text: string): ParseResult => parseFormula(name, `formulas/${name}.toml`, text);
const ok = (r: ParseResult): Formula => {
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.formula;
};
const lookupOf = (files: Record<string, string>) => (name: string) =>
  files[name] === undefined ? undefined : parse(name, files[name]);

t.test(
  'extends: parents in order, vars first-defined wins then the child, steps replaced in place',
  async (t) => {
    const files = {
      a: `description = "A"\n[vars]\nx = "from-a"\ny = "from-a"\n[[steps]]\nid = "one"\ntitle = "A one"\n[[steps]]\nid = "two"\nneeds = ["one"]\n`,
      b: `[vars]\nx = "from-b"\nz = "from-b"\n[[steps]]\nid = "three"\n`,
      child: `extends = ["a", "b"]\nversion = 3\n[vars]\ny = "from-child"\n[[steps]]\nid = "one"\ntitle = "child one"\n[[steps]]\nid = "four"\nneeds = ["two", "three"]\n`,
    };
    const child = ok(parse('child', files.child));
    t.same(child.extends, ['a', 'b'], 'a parsed child names its parents; its needs wait for the merge');
    const merged = ok(resolveExtends(child, lookupOf(files)));
    t.same(
      merged.vars.map((v) => [v.name, v.default]),
      [
        ['x', 'from-a'],
        ['y', 'from-child'],
        ['z', 'from-b'],
      ],
    );
    t.same(
      merged.steps.map((s) => [s.id, s.title]),
      [
        ['one', 'child one'],
        ['two', 'two'],
        ['three', 'three'],
        ['four', 'four'],
      ],
    );
    t.match(merged, { name: 'child', version: 3, description: '', file: 'formulas/child.toml' });
    t.equal(merged.extends, undefined, 'the merged formula extends nothing');
  },
);

t.test('extends: a cycle, a missing parent and a broken merged graph are problems naming them', async (t) => {
  const cycle = { a: 'extends = ["b"]\n', b: 'extends = ["c"]\n', c: 'extends = ["a"]\n' };
  const r = resolveExtends(ok(parse('a', cycle.a)), lookupOf(cycle));
  t.match(r, {
    ok: false,
    problems: [{ field: 'extends', message: 'circular extends detected: a -> b -> c -> a' }],
  });
  const missing = resolveExtends(ok(parse('x', 'extends = ["ghost"]\n')), lookupOf({}));
  t.match(missing, {
    ok: false,
    problems: [
      {
        file: 'formulas/x.toml',
        line: 1,
        message: 'extends ghost: formula "ghost" not found in search paths',
      },
    ],
  });
  const dangling = {
    p: '[[steps]]\nid = "a"\n',
    c: 'extends = ["p"]\n[[steps]]\nid = "b"\nneeds = ["nope"]\n',
  };
  t.match(resolveExtends(ok(parse('c', dangling.c)), lookupOf(dangling)), {
    ok: false,
    problems: [{ field: 'steps[1].needs', message: 'names unknown step "nope"' }],
  });
  t.match(parse('bad', 'extends = "p"\n'), { ok: false, problems: [{ field: 'extends' }] });
});

t.test('retry: control bead keeps the id, a spec bead and the first attempt (mol-scoped-work)', async (t) => {
  const f = ok(parse('mol-scoped-work', core('mol-scoped-work')));
  const compiled = compileFormula(f, { issue: 'gc-1' }, { strict: true });
  if (!compiled.ok) throw new Error(compiled.problem.message);
  const byKey = new Map(compiled.recipe.steps.map((s) => [s.key, s]));
  const control = byKey.get('mol-scoped-work.load-context')!;
  t.match(control.metadata, {
    'gc.kind': 'retry',
    'gc.step_id': 'load-context',
    'gc.max_attempts': '3',
    'gc.on_exhausted': 'hard_fail',
    'gc.control_epoch': '1',
  });
  t.same(control.needs, ['mol-scoped-work.load-context.attempt.1']);
  const attempt = byKey.get('mol-scoped-work.load-context.attempt.1')!;
  t.match(attempt.metadata, { 'gc.attempt': '1', 'gc.step_id': 'load-context' });
  t.match(attempt.description, /bd show gc-1/, 'the attempt is the work, variables substituted');
  const spec = byKey.get('mol-scoped-work.load-context.spec')!;
  t.match(spec, { type: 'spec', title: 'Step spec for Load context and inspect the assignment' });
  t.match(spec.metadata, { 'gc.kind': 'spec', 'gc.spec_for': 'load-context' });
  t.match(JSON.parse(spec.description!), {
    id: 'load-context',
    retry: { max_attempts: 3, on_exhausted: 'hard_fail' },
  });
  const setup = byKey.get('mol-scoped-work.workspace-setup')!;
  t.ok(
    setup.needs.includes('mol-scoped-work.load-context'),
    'downstream steps still wait for the control bead',
  );
  const setupAttempt = byKey.get('mol-scoped-work.workspace-setup.attempt.1')!;
  t.equal(
    setupAttempt.metadata['gc.scope_ref'],
    undefined,
    'an attempt leaves the scope keys to its control',
  );
  t.equal(byKey.get('mol-scoped-work.workspace-setup')!.metadata['gc.scope_ref'], 'body');
  const order = compiled.recipe.steps.map((s) => s.key);
  t.ok(
    order.indexOf('mol-scoped-work.load-context.attempt.1') < order.indexOf('mol-scoped-work.load-context'),
    'an attempt is created before the control that waits for it',
  );
});

t.test('retry: bad specs are refused as upstream refuses them', async (t) => {
  const bad = (retry: string, extra = '') =>
    parse('r', `[[steps]]\nid = "a"\n${extra}[steps.retry]\n${retry}\n`);
  t.match(bad('max_attempts = 0'), { ok: false, problems: [{ message: 'max_attempts must be >= 1' }] });
  t.match(bad('max_attempts = 2\non_exhausted = "later"'), {
    ok: false,
    problems: [{ message: 'unsupported on_exhausted "later" (want hard_fail or soft_fail)' }],
  });
  t.match(bad('max_attempts = 2', 'loop = { count = 2 }\n'), {
    ok: false,
    problems: [{ field: 'steps[0].loop' }, { message: 'retry cannot be combined with loop' }],
  });
});

t.test('the city serves gastown’s polecat formulas: extends resolved, version, preview', async (t) => {
  const h = await formulaHarness(t);
  for (const name of ['mol-polecat-base', 'mol-polecat-commit', 'mol-scoped-work'])
    await h.formula(`${name}.toml`, core(name));
  await h.formula('mol-polecat-work.toml', gastown('mol-polecat-work'));
  const list = await call(h, 'GET', '/formulas?extras=true');
  t.equal(list.statusCode, 200, list.body);
  t.match(list.json(), { partial: false, total: 4 });
  const work = list.json().items.find((i: { name: string }) => i.name === 'mol-polecat-work');
  t.equal(work.version, '7', 'the child’s version, as a string');
  t.ok(
    work.var_defs.some((v: { name: string; required?: boolean }) => v.name === 'issue' && v.required),
    'the parent’s variables are inherited',
  );
  t.equal((await call(h, 'GET', '/formulas')).json().items[0].version, undefined, 'version is opt-in');

  const detail = await call(h, 'GET', '/formulas/mol-polecat-work?extras=true');
  t.equal(detail.statusCode, 200, detail.body);
  t.equal(detail.json().version, '7');
  t.same(
    detail.json().steps.map((s: { id: string }) => s.id.replace('mol-polecat-work.', '')),
    ['load-context', 'workspace-setup', 'preflight-tests', 'implement', 'self-review', 'submit-and-exit'],
    'the parent’s steps, the child’s workspace-setup in place, submit-and-exit appended',
  );
  t.equal((await call(h, 'GET', '/formulas/mol-polecat-work')).json().version, undefined);

  const missing = await call(h, 'POST', '/formulas/mol-polecat-work/preview', { target: 'polecat' });
  t.equal(missing.statusCode, 422, 'a preview checks the required variables as a cook does');
  t.equal(missing.json().detail, 'missing_variable: missing required variable issue');
  const preview = await call(h, 'POST', '/formulas/mol-scoped-work/preview?extras=true', {
    target: 'polecat',
    vars: { issue: 'gc-7' },
  });
  t.equal(preview.statusCode, 200, preview.body);
  t.equal(preview.json().version, '2');
  const ids: string[] = preview.json().preview.nodes.map((n: { id: string }) => n.id);
  t.notOk(
    ids.some((id) => id.endsWith('.spec')),
    'spec beads are left out of the preview',
  );
  t.ok(ids.includes('mol-scoped-work.load-context.attempt.1'));
  t.match(
    preview.json().preview.nodes.find((n: { id: string }) => n.id === 'mol-scoped-work.workspace-setup'),
    { kind: 'retry', scope_ref: 'body' },
  );

  const cooked = await call(h, 'POST', '/formulas/mol-polecat-commit/cook', { vars: { issue: 'gc-9' } });
  t.equal(cooked.statusCode, 201, cooked.body);
  t.equal(cooked.json().bead_ids.length, 1 + 6, 'root and the six merged steps');
});
