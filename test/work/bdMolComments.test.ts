import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { listShapeErrors, showShapeErrors } from './bdShapes.ts';
import { runBdInput, workCity, type WorkCity } from './helpers.ts';

/**
 * The built `bd` against a real supervisor's city, issue 28's missing part: comments and notes
 * (`comments`, `comments add`, `comment`, `note`, a real `comment_count`), `label list`, and the molecule
 * subset prompts use (`mol wisp|pour|current|show|progress|burn`) over our formula cook. Each command's
 * text and `--json` shape (shared/reference/agent-cli.md §3.2, §3.10, §3.11), its refusals (one line on
 * stderr, nothing changed, exit 1 for bd's no and 2 for what we do not build), and the actor's current
 * molecule.
 */

t.setTimeout(180_000);

type Issue = Record<string, unknown> & { id: string; title: string; status: string };
type Result = { code: number | null; stdout: string; stderr: string };

const PATROL = `formula = "mol-patrol"
description = "Patrol {{area}}"

[vars]
area = { description = "Where", required = true }

[[steps]]
id = "scan"
title = "Scan {{area}}"

[[steps]]
id = "fix"
title = "Fix what the scan found"
needs = ["scan"]

[[steps]]
id = "report"
title = "Report on {{area}}"
needs = ["fix"]
`;

const storeOf = async (city: WorkCity): Promise<unknown> =>
  (await city.sup.call('GET', `/v0/city/${city.name}/beads?all=true&limit=1000`)).body;

t.test('comments, notes, labels and molecules over a real city', async (t) => {
  const city = await workCity(t);
  await mkdir(join(city.dir, 'formulas'), { recursive: true });
  await writeFile(join(city.dir, 'formulas', 'mol-patrol.toml'), PATROL);
  const json = <T = Issue>(r: Result, what: string): T => {
    t.equal(r.code, 0, `${what}: exit 0 (stderr: ${r.stderr})`);
    return JSON.parse(r.stdout) as T;
  };
  const a = json(await city.bd(['create', 'Fix the parser', '-l', 'bug,parser', '--json']), 'create');

  await t.test('comments: add, list (text and JSON), comment_count in list and show', async (t) => {
    const none = await city.bd(['comments', a.id]);
    t.equal(none.stdout, `No comments on ${a.id}\n`);
    t.same(json(await city.bd(['comments', a.id, '--json']), 'comments empty'), []);
    const added = await city.bd(['comments', 'add', a.id, 'First look: the lexer', '-a', 'alice']);
    t.equal(added.code, 0, added.stderr);
    t.equal(added.stdout, `Comment added to ${a.id}\n`);
    const second = json<Record<string, unknown>>(
      await city.bd(['comment', a.id, 'Found', 'it', '--json']),
      'comment --json',
    );
    t.match(second, { id: 2, issue_id: a.id, author: 'tester', text: 'Found it' });
    t.same(Object.keys(second).sort(), ['author', 'created_at', 'id', 'issue_id', 'text']);
    t.match(second.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'RFC 3339, seconds');
    const file = join(city.dir, 'comment.txt');
    await writeFile(file, 'From a file\nsecond line\n');
    const fromFile = json<Record<string, unknown>>(
      await city.bd(['comments', 'add', a.id, '-f', file, '--json']),
      'comments add -f',
    );
    t.match(fromFile, { id: 3, text: 'From a file\nsecond line', author: 'tester' });
    const piped = await runBdInput(['comment', a.id, '--stdin'], city.env, 'Piped in\n');
    t.equal(piped.code, 0, piped.stderr);
    t.equal(piped.stdout, `Comment added to ${a.id}\n`);
    const listed = json<Record<string, unknown>[]>(await city.bd(['comments', a.id, '--json']), 'comments');
    t.same(
      listed.map((c) => [c.id, c.author, c.text]),
      [
        [1, 'alice', 'First look: the lexer'],
        [2, 'tester', 'Found it'],
        [3, 'tester', 'From a file\nsecond line'],
        [4, 'tester', 'Piped in'],
      ],
    );
    const text = await city.bd(['comments', a.id]);
    t.match(
      text.stdout,
      new RegExp(
        `^Comments on ${a.id}:\\n\\[alice\\] at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\n  First look: the lexer\\n`,
      ),
    );
    t.match(text.stdout, /\n {2}From a file\n {2}second line\n\[tester\] at [^\n]+\n {2}Piped in\n$/);
    const rows = json<Issue[]>(await city.bd(['list', '--json', '--label', 'parser']), 'list');
    t.same(listShapeErrors(rows), [], 'list keeps bd’s shape');
    const [row] = rows;
    t.match(row, { id: a.id, comment_count: 4 });
    t.notOk(
      Object.keys((row!.metadata as Record<string, string> | undefined) ?? {}).some((k) =>
        k.startsWith('gc.comment'),
      ),
      'comments are not shown as metadata',
    );
    const shownAll = json<Issue[]>(await city.bd(['show', a.id, '--json']), 'show');
    t.same(showShapeErrors(shownAll), [], 'show keeps bd’s shape');
    t.match(shownAll[0], { comments: [{ id: 1, author: 'alice' }, { id: 2 }, { id: 3 }] });
    const showText = await city.bd(['show', a.id]);
    t.match(showText.stdout, /\nCOMMENTS\n {2}\[alice\] \d{4}-\d\d-\d\d \d\d:\d\d: First look: the lexer\n/);
  });

  await t.test('note appends to notes; label list', async (t) => {
    const first = await city.bd(['note', a.id, 'Tried', 'the', 'fast', 'path']);
    t.equal(first.stdout, `✓ Added note to ${a.id}\n`);
    const updated = json(await city.bd(['note', a.id, 'Then the slow one', '--json']), 'note --json');
    t.match(updated, { id: a.id, notes: 'Tried the fast path\nThen the slow one' });
    t.same(showShapeErrors([updated]), [], 'note answers a bd issue');
    t.notOk('gc.notes' in ((updated.metadata as Record<string, string> | undefined) ?? {}));
    t.match((await city.bd(['show', a.id])).stdout, /\nNOTES\nTried the fast path\nThen the slow one\n/);
    t.same(json(await city.bd(['label', 'list', a.id, '--json']), 'label list'), ['bug', 'parser']);
    t.equal((await city.bd(['label', 'list', a.id])).stdout, `Labels for ${a.id}:\n  - bug\n  - parser\n`);
    t.equal((await city.bd(['label', 'list', a.id, '--readonly'])).code, 0, 'label list only reads');
  });

  let wispRoot = '';
  await t.test('mol wisp: the JSON prompts read, the text, root-only', async (t) => {
    const wisp = json<Record<string, unknown>>(
      await city.bd(['mol', 'wisp', 'mol-patrol', '--var', 'area=docs', '--json']),
      'wisp --json',
    );
    t.same(Object.keys(wisp).sort(), ['created', 'id_mapping', 'new_epic_id', 'phase']);
    t.match(wisp, { phase: 'vapor', created: 4 });
    wispRoot = wisp.new_epic_id as string;
    const mapping = wisp.id_mapping as Record<string, string>;
    t.same(Object.keys(mapping).sort(), [
      'mol-patrol',
      'mol-patrol.fix',
      'mol-patrol.report',
      'mol-patrol.scan',
    ]);
    t.equal(mapping['mol-patrol'], wispRoot);
    const [root] = json<Issue[]>(await city.bd(['show', wispRoot, '--json']), 'show root');
    t.match(root, { title: 'mol-patrol', metadata: { 'gc.formula_name': 'mol-patrol' } });
    const [scan] = json<Issue[]>(await city.bd(['show', mapping['mol-patrol.scan']!, '--json']), 'step');
    t.match(scan, { title: 'Scan docs', parent: wispRoot });

    const text = await city.bd(['mol', 'wisp', 'mol-patrol', '--var', 'area=web', '--root-only']);
    t.equal(text.code, 0, text.stderr);
    const m = /^Created wisp: 1 issue\nRoot issue: (\S+)\n$/.exec(text.stdout);
    t.ok(m, `text output: ${text.stdout}`);
    const shown = json<Record<string, unknown>>(await city.bd(['mol', 'show', m![1]!, '--json']), 'show');
    t.match(shown, { molecule_id: m![1], total: 0, steps: [] }, 'root-only: no steps');
  });

  await t.test('mol current, progress and show: markers and the actor’s molecule', async (t) => {
    const mapping = (
      json<Record<string, unknown>>(await city.bd(['mol', 'show', wispRoot, '--json']), 'show').steps as {
        id: string;
        step_ref: string;
      }[]
    ).reduce<Record<string, string>>(
      (acc, s) => ({ ...acc, [s.step_ref.replace('mol-patrol.', '')]: s.id }),
      {},
    );
    const none = await city.bd(['mol', 'current']);
    t.equal(none.stdout, 'No molecule in progress for tester\n', 'nothing claimed yet');
    t.same(json(await city.bd(['mol', 'current', '--json']), 'current none'), []);
    const byId = await city.bd(['mol', 'current', wispRoot]);
    t.match(
      byId.stdout,
      new RegExp(
        `^Molecule: ${wispRoot} — mol-patrol \\[open\\]\\nFormula: mol-patrol\\nProgress: 0/3 steps done\\n\\n` +
          ` {2}\\[ready\\] {3}${mapping.scan}: Scan docs\\n` +
          ` {2}\\[pending\\] ${mapping.fix}: Fix what the scan found\\n` +
          ` {2}\\[pending\\] ${mapping.report}: Report on docs\\n$`,
      ),
    );
    t.equal((await city.bd(['update', mapping.scan!, '--claim'])).code, 0);
    const mine = json<Record<string, unknown>[]>(await city.bd(['mol', 'current', '--json']), 'current');
    t.match(mine, [
      {
        molecule_id: wispRoot,
        completed: 0,
        total: 3,
        steps: [
          { id: mapping.scan, marker: 'current', assignee: 'tester' },
          { id: mapping.fix, marker: 'pending', needs: [mapping.scan] },
          { id: mapping.report, marker: 'pending' },
        ],
      },
    ]);
    const other = await city.bd(['mol', 'current'], { BEADS_ACTOR: 'someone-else' });
    t.equal(other.stdout, 'No molecule in progress for someone-else\n', 'another actor has none');
    t.equal((await city.bd(['close', mapping.scan!])).code, 0);
    t.equal((await city.bd(['update', mapping.fix!, '--status', 'blocked'])).code, 0);
    const fromStep = await city.bd(['mol', 'current', mapping.report!]);
    t.match(fromStep.stdout, new RegExp(`\\[done\\] {4}${mapping.scan}: `), 'a step names its molecule');
    t.match(fromStep.stdout, new RegExp(`\\[blocked\\] ${mapping.fix}: `));
    t.equal((await city.bd(['update', mapping.fix!, '--status', 'open'])).code, 0);
    t.match(
      (await city.bd(['mol', 'current', wispRoot])).stdout,
      new RegExp(`\\[ready\\] {3}${mapping.fix}`),
    );
    const progress = json<Record<string, unknown>[]>(
      await city.bd(['mol', 'progress', wispRoot, '--json']),
      'progress',
    );
    t.same(progress, [
      {
        molecule_id: wispRoot,
        title: 'mol-patrol',
        completed: 1,
        in_progress: 0,
        total: 3,
        percent: 33,
        current_step_id: mapping.fix,
      },
    ]);
    t.equal(
      (await city.bd(['mol', 'progress', wispRoot])).stdout,
      `Molecule: ${wispRoot} — mol-patrol\nProgress: 1/3 (33%)\nCurrent step: ${mapping.fix}\n`,
    );
    const show = await city.bd(['mol', 'show', wispRoot]);
    t.equal(
      show.stdout,
      [
        `Molecule: ${wispRoot} — mol-patrol [open]`,
        'Formula: mol-patrol',
        'Steps (3):',
        `  ${mapping.scan}: Scan docs [closed]`,
        `  ${mapping.fix}: Fix what the scan found [open] (needs ${mapping.scan})`,
        `  ${mapping.report}: Report on docs [open] (needs ${mapping.fix})`,
        '',
      ].join('\n'),
    );
    const shownJson = json<Record<string, unknown>>(
      await city.bd(['mol', 'show', wispRoot, '--json']),
      'show',
    );
    t.match(shownJson, { root: { id: wispRoot, title: 'mol-patrol' }, total: 3 });
  });

  await t.test('mol pour with an assignee, then burn', async (t) => {
    const pour = json<Record<string, unknown>>(
      await city.bd(['mol', 'pour', 'mol-patrol', '--var', 'area=ops', '--assignee', 'worker', '--json']),
      'pour',
    );
    t.match(pour, { phase: 'liquid', created: 4 });
    const root = pour.new_epic_id as string;
    const [shown] = json<Issue[]>(await city.bd(['show', root, '--json']), 'show');
    t.equal(shown!.assignee, 'worker');
    const text = await city.bd(['mol', 'pour', 'mol-patrol', '--var', 'area=qa']);
    t.match(text.stdout, /^Poured molecule: 4 issues\nRoot issue: \S+\n$/);
    const burn = json<Record<string, unknown>[]>(await city.bd(['mol', 'burn', root, '--json']), 'burn');
    t.same(burn, [{ molecule_id: root, deleted: 4 }]);
    const gone = await city.bd(['show', root]);
    t.equal(gone.code, 1, 'the burnt root is gone');
    const other = /Root issue: (\S+)/.exec(text.stdout)![1]!;
    const burnText = await city.bd(['mol', 'burn', other, '--force']);
    t.equal(burnText.stdout, `🔥 Burned molecule ${other}: 4 issues deleted\n`);
  });

  await t.test('refusals: one line, exit 1 or 2, nothing changed', async (t) => {
    const before = await storeOf(city);
    const cases: [string[], number, RegExp][] = [
      [['comments'], 1, /^Error: comments requires exactly one issue ID\n$/],
      [['comments', 'add', a.id], 1, /^Error: comment text required\n$/],
      [['comments', 'add', 'nope-1', 'x'], 1, /^Error: no issue found matching "nope-1"\n$/],
      [
        ['comments', a.id, '-a', 'bob'],
        2,
        /^Error: -f\/--file and -a\/--author are flags of "bd comments add"\n$/,
      ],
      [['comment', a.id, 'x', '--author', 'bob'], 2, /^Error: unsupported flag --author for "bd comment"\n$/],
      [['comment', a.id, 'x', '--file', '/nonexistent/f'], 1, /^Error: give the comment text as arguments/],
      [['comment', a.id, '--file', '/nonexistent/f'], 1, /^Error: reading \/nonexistent\/f: /],
      [['note', a.id], 1, /^Error: comment text required\n$/],
      [['comments', 'add', a.id, 'x', '--readonly'], 1, /^Error: operation 'comments' is not allowed/],
      [['label', 'list'], 1, /^Error: label list requires exactly one issue ID\n$/],
      [['label', 'list-all'], 2, /^Error: unsupported command "bd label list-all"\n$/],
      [['mol'], 2, /^Error: unsupported command "bd mol"\n$/],
      [['mol', 'squash', wispRoot], 2, /^Error: unsupported command "bd mol squash"\n$/],
      [['mol', 'wisp', 'list'], 2, /^Error: unsupported command "bd mol wisp list"\n$/],
      [['mol', 'wisp', 'mol-patrol', '--dry-run'], 2, /^Error: unsupported flag --dry-run for "bd mol"\n$/],
      [
        ['mol', 'show', wispRoot, '--root-only'],
        2,
        /^Error: unsupported flag --root-only for "bd mol show"\n$/,
      ],
      [['mol', 'wisp', 'mol-patrol'], 1, /^Error: .*area/],
      [['mol', 'wisp', 'mol-none'], 1, /^Error: formula "mol-none" not found\n$/],
      [
        ['mol', 'wisp', 'mol-patrol', '--var', 'area'],
        1,
        /^Error: invalid --var "area" \(expected key=value\)\n$/,
      ],
      [['mol', 'pour'], 1, /^Error: mol pour requires exactly one formula name\n$/],
      [['mol', 'show', a.id], 1, new RegExp(`^Error: ${a.id} is not a molecule\\n$`)],
      [['mol', 'current', 'nope-1'], 1, /^Error: no issue found matching "nope-1"\n$/],
      [['mol', 'burn', wispRoot, a.id], 1, new RegExp(`^Error: ${a.id} is not a molecule\\n$`)],
      [['mol', 'burn'], 1, /^Error: mol burn requires at least one molecule ID\n$/],
      [
        ['mol', 'wisp', 'mol-patrol', '--var', 'area=x', '--readonly'],
        1,
        /^Error: operation 'mol' is not allowed/,
      ],
    ];
    for (const [args, code, re] of cases) {
      const r = await city.bd(args);
      t.equal(r.code, code, `${args.join(' ')}: exit ${code}`);
      t.match(r.stderr, re, args.join(' '));
      t.equal(r.stderr.split('\n').length, 2, `${args.join(' ')}: one line`);
    }
    t.same(await storeOf(city), before, 'no refusal changed the store');
    const jsonErr = await city.bd(['comments', 'nope-1', '--json']);
    t.equal(jsonErr.code, 1);
    t.same(JSON.parse(jsonErr.stdout), { error: 'no issue found matching "nope-1"' });
    const down = await city.bd(['mol', 'current'], { GC_API: 'http://127.0.0.1:1' });
    t.equal(down.code, 1);
    t.match(down.stderr, /^Error: cannot reach the supervisor at http:\/\/127\.0\.0\.1:1: .*\n$/);
  });
});
