import t from 'tap';
import { flatten, renderReport } from '../bench/report.ts';

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
