import t from 'tap';
import { compileFormula } from '../../machines/formulas/compile.ts';
import type { Formula } from '../../machines/formulas/formula.ts';
import { findCycle } from '../../machines/formulas/graph.ts';
import { parseFormula } from '../../machines/formulas/parseFormula.ts';
import { REVIEW } from './helpers.ts';

const parsed = (text: string): Formula => {
  const r = parseFormula('mol-review', 'formulas/mol-review.toml', text);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.formula;
};
const problems = (text: string) => {
  const r = parseFormula('f', 'formulas/f.toml', text);
  return r.ok ? [] : r.problems;
};

t.test('parses upstream keys: vars (bare default or table), steps, tags, needs', async (t) => {
  const f = parsed(REVIEW);
  t.equal(f.version, 2);
  t.same(
    f.vars.map((v) => [v.name, v.default, v.required]),
    [
      ['mode', 'quick', undefined],
      ['target', undefined, true],
    ],
  );
  t.same(
    f.steps.map((s) => [s.id, s.needs, s.line]),
    [
      ['read', [], 9],
      ['lint', ['read'], 14],
      ['test', ['read'], 19],
      ['report', ['lint', 'test'], 25],
    ],
  );
  t.same(f.steps[0]!.tags, ['review']);
});

t.test('a TOML syntax error names the file and line', async (t) => {
  const [p] = problems('description = "x"\nversion = \n');
  t.match(p, { file: 'formulas/f.toml', line: 2, field: '(syntax)' });
});

t.test('field problems name the file, line and field', async (t) => {
  const text = `description = "x"\n\n[[steps]]\nid = "a"\n\n[[steps]]\nid = "b"\npriority = 9\nneeds = ["zzz"]\nloop = { count = 2 }\n`;
  const ps = problems(text);
  t.same(
    ps.map((p) => [p.line, p.field]),
    [
      [10, 'steps[1].loop'],
      [8, 'steps[1].priority'],
    ],
  );
  t.match(ps[0]!.message, /not supported/);
});

t.test('needs naming an unknown step and duplicate ids are refused', async (t) => {
  const ps = problems(`[[steps]]\nid = "a"\nneeds = ["ghost"]\n[[steps]]\nid = "a"\n`);
  t.same(
    ps.map((p) => [p.line, p.field, p.message]),
    [
      [4, 'steps[1].id', 'duplicate step id "a"'],
      [1, 'steps[0].needs', 'names unknown step "ghost"'],
    ],
  );
});

t.test('a dependency cycle is refused, naming the cycle', async (t) => {
  const ps = problems(
    `[[steps]]\nid = "a"\nneeds = ["c"]\n[[steps]]\nid = "b"\nneeds = ["a"]\n[[steps]]\nid = "c"\nneeds = ["b"]\n`,
  );
  t.equal(ps.length, 1);
  t.match(ps[0], { line: 1, field: 'steps[0].needs', message: 'dependency cycle: a -> c -> b -> a' });
});

t.test('findCycle finds none in a diamond', async (t) => {
  const edges: Record<string, string[]> = { d: ['b', 'c'], b: ['a'], c: ['a'], a: [] };
  t.equal(
    findCycle(Object.keys(edges), (id) => edges[id] ?? []),
    undefined,
  );
});

t.test('compile: defaults then caller values, conditions, substitution, dependency order', async (t) => {
  const r = compileFormula(parsed(REVIEW), { target: 'PR-7' }, { strict: true });
  if (!r.ok) throw new Error(r.problem.message);
  t.same(
    r.recipe.steps.map((s) => [s.key, s.title, s.needs]),
    [
      ['mol-review.read', 'Read PR-7', []],
      ['mol-review.lint', 'Lint (quick)', ['mol-review.read']],
      ['mol-review.report', 'Report on PR-7', ['mol-review.lint']],
    ],
    'the test step is dropped (mode is not full), with its edge',
  );
  t.equal(r.recipe.root.type, 'task');
  t.equal(r.recipe.root.description, 'Review PR-7');
  const full = compileFormula(parsed(REVIEW), { target: 'x', mode: 'full' }, { strict: true });
  t.equal(full.ok && full.recipe.steps.length, 4);
});

t.test(
  'compile: a missing required variable is named; a preview without variables is not strict',
  async (t) => {
    const r = compileFormula(parsed(REVIEW), {}, { strict: true });
    t.match(r, { ok: false, problem: { kind: 'missing_variable', variable: 'target' } });
    const loose = compileFormula(parsed(REVIEW), {}, { strict: false });
    t.equal(loose.ok && loose.recipe.steps[0]!.title, 'Read {{target}}');
  },
);

t.test('compile: enum and pattern are checked; a placeholder left in a title is refused', async (t) => {
  const f = parsed(
    `[vars]\nsize = { enum = ["s", "m"] }\nid = { pattern = "^[0-9]+$" }\n[[steps]]\nid = "a"\ntitle = "{{nope}}"\n`,
  );
  t.match(compileFormula(f, { size: 'xl' }, { strict: true }), {
    ok: false,
    problem: { kind: 'invalid_variable', variable: 'size' },
  });
  t.match(compileFormula(f, { id: 'abc' }, { strict: true }), {
    ok: false,
    problem: { kind: 'invalid_variable', variable: 'id' },
  });
  t.match(compileFormula(f, {}, { strict: true }), {
    ok: false,
    problem: { kind: 'unresolved_placeholder', variable: 'nope' },
  });
});
