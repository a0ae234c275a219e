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
