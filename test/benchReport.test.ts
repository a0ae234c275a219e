import t from 'tap';
import { flatten, mergeReport, renderReport } from '../bench/report.ts';

t.test('figures render with their floor and ratio', async (t) => {
  const md = renderReport({
    generated_at: 'now',
    mode: 'quick',
    node: 'v20',
    scenarios: [
      {
        name: 'journal',
        ok: true,
        seconds: 1,
        data: { figures: [{ name: 'append', value: 50, unit: 'k/s', floor: 100, floor_name: 'raw' }] },
      },
      { name: 'broken', ok: false, error: 'exited with 1' },
    ],
  });
  t.match(md, '| append | 50 k/s | 100 k/s (raw) | 0.500 |');
  t.match(md, 'Failed: exited with 1');
});

t.test('any other shape is flattened into rows', async (t) => {
  t.same(flatten({ a: { b: 1, c: [1, 2] }, d: 'x' }), [
    ['a.b', 1],
    ['a.c', [1, 2]],
    ['d', 'x'],
  ]);
});

t.test('a partial run replaces its sections of the report and keeps the others in order', async (t) => {
  const scenario = (name: string, value: number) => ({
    name,
    ok: true,
    seconds: 1,
    data: { figures: [{ name: `${name} figure`, value }] },
  });
  const old = renderReport({
    generated_at: 'day one',
    mode: 'full',
    node: 'v20',
    scenarios: [scenario('journal', 1), scenario('beads', 2), scenario('cli', 3)],
  });
  const merged = mergeReport(
    old,
    {
      generated_at: 'day two',
      mode: 'full',
      node: 'v20',
      scenarios: [scenario('beads', 20), scenario('dashboard', 4)],
    },
    ['journal', 'beads', 'dashboard', 'cli'],
  );
  t.match(merged, 'Generated day one');
  t.match(merged, 'Re-run day two (full mode, Node v20): beads, dashboard.');
  t.match(merged, '| beads figure | 20 |');
  t.notMatch(merged, '| beads figure | 2 |');
  t.match(merged, '| journal figure | 1 |');
  t.same(
    [...merged.matchAll(/^## (\w+)/gm)].map((m) => m[1]),
    ['journal', 'beads', 'dashboard', 'cli'],
  );
  t.match(merged, '(1 s, measured day one)');
  t.match(merged, '(1 s, measured day two)');
});
