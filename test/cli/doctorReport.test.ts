import t from 'tap';
import { reportLines } from '../../cli/commands/doctor.ts';

/** The report's layout (upstream's doctor): pure, so every shape is checked without a supervisor. */

t.test('a line per check, hints under problems, details only verbose, then the summary', async (t) => {
  const checks = [
    { name: 'supervisor', status: 'ok' as const, message: 'reachable', details: ['pid 1'] },
    { name: 'config', status: 'warning' as const, message: '1 warning(s)', hint: 'look', details: ['a: b'] },
    { name: 'shims', status: 'error' as const, message: 'bd shim missing', hint: 'fix it' },
    { name: 'types', status: 'error' as const, message: 'ok now', hint: 'never shown', fixed: true },
  ];
  t.same(reportLines(checks, false), [
    '  ✓ supervisor — reachable',
    '  ⚠ config — 1 warning(s)',
    '    hint: look',
    '  ✗ shims — bd shim missing',
    '    hint: fix it',
    '  ✓ types — ok now (fixed)',
    '',
    '1 passed, 1 warnings, 1 failed, 1 fixed',
  ]);
  t.same(reportLines(checks, true).slice(0, 4), [
    '  ✓ supervisor — reachable',
    '      pid 1',
    '  ⚠ config — 1 warning(s)',
    '      a: b',
  ]);
});

t.test('no checks: "No checks ran."', async (t) => {
  t.same(reportLines([], false), ['', 'No checks ran.']);
});
