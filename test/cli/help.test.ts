import t from 'tap';
import { COMMANDS } from '../../cli/commands/index.ts';
import { runGc } from './helpers/gc.ts';

/** Every command is registered, documented and has examples; the launcher answers --help and --version. */

t.setTimeout(5 * 60_000);

t.test('gc --help lists every command and topic', async (t) => {
  const r = await runGc(['--help']);
  t.equal(r.code, 0);
  for (const id of Object.keys(COMMANDS)) {
    const [head, tail] = id.split(':');
    t.match(r.stdout, new RegExp(`\\n  ${tail ? head : id}\\s`), id);
  }
});

t.test('every command has a summary, a description and examples in its --help', async (t) => {
  for (const [id, cmd] of Object.entries(COMMANDS)) {
    t.ok(cmd.summary && cmd.description, `${id}: summary and description`);
    t.ok((cmd.examples ?? []).length >= 2, `${id}: at least two examples`);
    const r = await runGc([...id.split(':'), '--help']);
    t.equal(r.code, 0, id);
    t.match(r.stdout, /\nEXAMPLES\n/, `${id}: examples shown`);
  }
});

t.test('--version, and an unknown command is one line with exit 1', async (t) => {
  const v = await runGc(['--version']);
  t.same([v.code, v.stderr], [0, '']);
  t.match(v.stdout, /^gascity-supervisor\/\d+\.\d+\.\d+ /);
  const u = await runGc(['frobnicate', 'now']);
  t.same([u.code, u.stdout, u.stderr], [1, '', 'gc: unknown command "frobnicate now"; see "gc --help"\n']);
});

t.test('a usage error names what is wrong and points to the command help, on one line', async (t) => {
  const withArgs = Object.entries(COMMANDS).filter(([, cmd]) =>
    Object.values(cmd.args ?? {}).some((a) => a.required),
  );
  t.ok(withArgs.length >= 2, 'city create and city unregister take a required argument');
  for (const [id, cmd] of withArgs) {
    const name = id.replaceAll(':', ' ');
    const required = Object.entries(cmd.args ?? {}).filter(([, a]) => a.required);
    const r = await runGc(id.split(':'));
    t.same(
      [r.code, r.stdout, r.stderr],
      [
        1,
        '',
        `gc ${name}: missing required argument${required.length === 1 ? '' : 's'} ${required.map(([k]) => `<${k}>`).join(' ')}; see "gc ${name} --help"\n`,
      ],
      id,
    );
  }
  const badFlag = await runGc(['events', '--after', 'x']);
  t.same(
    [badFlag.code, badFlag.stdout, badFlag.stderr],
    [1, '', 'gc events: --after: Expected an integer but received: x; see "gc events --help"\n'],
    'a flag value that does not parse says why',
  );
  const unknownFlag = await runGc(['cities', '--bogus']);
  t.same(
    [unknownFlag.code, unknownFlag.stdout, unknownFlag.stderr],
    [1, '', 'gc cities: Nonexistent flag: --bogus; see "gc cities --help"\n'],
  );
  const noValue = await runGc(['events', '--city']);
  t.same(
    [noValue.code, noValue.stdout, noValue.stderr],
    [1, '', 'gc events: Flag --city expects a value; see "gc events --help"\n'],
  );
});
