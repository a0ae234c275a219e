import t from 'tap';
import { workCity } from './helpers.ts';

/**
 * The built `bd` against a real supervisor's city: the subset prompts use, bd's JSON shapes, the atomic
 * claim, and refusals (one line, nothing changed; unsupported = exit 2).
 */

t.setTimeout(120_000);

type Issue = Record<string, unknown> & { id: string; title: string; status: string };

t.test('bd over a real city', async (t) => {
  const city = await workCity(t);
  const json = <T = Issue>(r: { code: number | null; stdout: string; stderr: string }, what: string): T => {
    t.equal(r.code, 0, `${what}: exit 0 (stderr: ${r.stderr})`);
    return JSON.parse(r.stdout) as T;
  };

  const a = json(await city.bd(['create', 'Fix the parser', '-t', 'bug', '-p', '1', '--json']), 'create');
  t.match(a, { title: 'Fix the parser', status: 'open', issue_type: 'bug', priority: 1 });
  t.type(a.created_at, 'string');
  t.type(a.updated_at, 'string');
  const b = json(
    await city.bd([
      'create',
      '--title',
      'Write docs',
      '--labels',
      'docs,easy',
      '--metadata',
      '{"gc.routed_to":"alpha/polecat","n":3}',
      '--json',
    ]),
    'create b',
  );
  t.same(b.labels, ['docs', 'easy']);
  t.same(b.metadata, { 'gc.routed_to': 'alpha/polecat', n: '3' }, 'metadata kept as strings');
  t.equal(b.priority, 2, 'default priority 2');
  const text = await city.bd(['create', 'Plain one']);
  t.match(text.stdout, /^✓ Created issue: \S+ — Plain one\n {2}Priority: P2\n {2}Status: open\n$/);
  const silent = await city.bd(['create', 'Silent one', '--silent']);
  t.match(silent.stdout, /^\S+-\S+\n$/);

  await t.test('show --json is an array with labels and dependencies as issues', async (t) => {
    const dep = await city.bd(['dep', 'add', b.id, a.id, '--json']);
    t.same(json(dep, 'dep add'), { status: 'added', issue_id: b.id, depends_on_id: a.id, type: 'blocks' });
    const [shown, ...rest] = json<Issue[]>(await city.bd(['show', b.id, '--json']), 'show');
    t.same(rest, []);
    t.match(shown, {
      id: b.id,
      labels: ['docs', 'easy'],
      dependencies: [{ id: a.id, dependency_type: 'blocks' }],
    });
    const blocked = json<Issue[]>(await city.bd(['blocked', '--json']), 'blocked');
    t.match(blocked, [{ id: b.id, blocked_by_count: 1, blocked_by: [a.id] }]);
    const missing = await city.bd(['show', 'nope-1', '--json']);
    t.equal(missing.code, 1);
    t.same(JSON.parse(missing.stdout), { error: 'no issues found matching the provided IDs' });
    t.match(missing.stderr, /^Error fetching nope-1: no issue found matching "nope-1"\n$/);
    const tree = await city.bd(['dep', 'tree', b.id]);
    t.match(tree.stdout, new RegExp(`^${b.id}: Write docs \\[open\\]\\n  └── ${a.id}: Fix the parser`));
  });

  await t.test('ready: unblocked open work with the filters prompts use', async (t) => {
    const ready = json<Issue[]>(await city.bd(['ready', '--json']), 'ready');
    t.ok(
      ready.some((i) => i.id === a.id),
      'a is ready',
    );
    t.notOk(
      ready.some((i) => i.id === b.id),
      'b is blocked by a',
    );
    t.match(
      ready.find((i) => i.id === a.id),
      { dependency_count: 0, dependent_count: 1, comment_count: 0 },
    );
    const routed = await city.bd([
      'ready',
      '--metadata-field',
      'gc.routed_to=alpha/polecat',
      '--unassigned',
      '--json',
    ]);
    t.same(json<Issue[]>(routed, 'routed'), [], 'b is routed but blocked');
    await city.bd(['dep', 'remove', b.id, a.id]);
    const again = json<Issue[]>(
      await city.bd([
        'ready',
        '--metadata-field',
        'gc.routed_to=alpha/polecat',
        '--unassigned',
        '--json',
        '--limit=1',
      ]),
      'routed again',
    );
    t.same(
      again.map((i) => i.id),
      [b.id],
    );
    t.same(json(await city.bd(['ready', '--label', 'docs', '--label', 'nope', '--json']), 'labels AND'), []);
    const none = await city.bd(['ready', '--assignee', 'nobody']);
    t.equal(none.stdout, 'No ready work found (all issues have blocking dependencies)\n');
  });

  await t.test('update --claim is atomic: the second claimant is refused', async (t) => {
    const first = json<Issue[]>(
      await city.bd(['update', a.id, '--claim', '--json'], { BEADS_ACTOR: 'polecat-1' }),
      'claim',
    );
    t.match(first, [{ id: a.id, status: 'in_progress', assignee: 'polecat-1' }]);
    const second = await city.bd(['update', a.id, '--claim'], { BEADS_ACTOR: 'polecat-2' });
    t.equal(second.code, 1, 'the only claim lost: exit 1');
    t.equal(second.stderr, `Error claiming ${a.id}: issue already claimed by polecat-1\n`);
    const same = await city.bd(['update', a.id, '--claim'], { BEADS_ACTOR: 'polecat-1' });
    t.equal(same.code, 0, 'claiming what one holds is idempotent');
    const list = json<Issue[]>(
      await city.bd(['list', '--status', 'in_progress', '--assignee', 'polecat-1', '--json']),
      'list',
    );
    t.same(
      list.map((i) => i.id),
      [a.id],
    );
  });

  await t.test('update fields, labels, metadata; close and reopen', async (t) => {
    const [u] = json<Issue[]>(
      await city.bd([
        'update',
        b.id,
        '--status',
        'in_progress',
        '--assignee',
        'crew',
        '--set-metadata',
        'branch=feat/x',
        '--add-label',
        'hot',
        '--remove-label',
        'easy',
        '--json',
      ]),
      'update',
    );
    t.match(u, {
      status: 'in_progress',
      assignee: 'crew',
      labels: ['docs', 'hot'],
      metadata: { branch: 'feat/x' },
    });
    await city.bd(['label', 'add', b.id, 'x1']);
    t.match(json<Issue[]>(await city.bd(['show', b.id, '--json']), 'show')[0], {
      labels: ['docs', 'hot', 'x1'],
    });
    const nothing = await city.bd(['update', b.id]);
    t.equal(nothing.stdout, 'No updates specified\n');
    const closed = await city.bd(['close', a.id, b.id, '--reason', 'done']);
    t.equal(closed.code, 0, closed.stderr);
    t.match(
      closed.stdout,
      new RegExp(`^✓ Closed ${a.id} — Fix the parser: done\\n✓ Closed ${b.id} — Write docs: done\\n$`),
    );
    const list = json<Issue[]>(await city.bd(['list', '--json']), 'list');
    t.notOk(
      list.some((i) => i.id === a.id || i.id === b.id),
      'closed beads are hidden',
    );
    const all = json<Issue[]>(await city.bd(['list', '--all', '--json']), 'list --all');
    t.match(
      all.find((i) => i.id === a.id),
      { status: 'closed', close_reason: 'done' },
    );
    const reopened = await city.bd(['reopen', a.id]);
    t.equal(reopened.stdout, `↻ Reopened ${a.id}\n`);
    const twice = await city.bd(['reopen', a.id]);
    t.equal(twice.stderr, `${a.id} is already open\n`);
  });

  await t.test('refusals: one line, exit 1 (bd said no) or 2 (not supported); nothing changes', async (t) => {
    const before = (await city.sup.call('GET', `/v0/city/${city.name}/beads?all=true&limit=1000`)).body;
    const cases: [string[], number, RegExp][] = [
      [['update', a.id, '--status', 'weird'], 1, /^Error: invalid status "weird"/],
      [
        ['update', a.id, '--unset-metadata', 'x'],
        2,
        /^Error: unsupported flag --unset-metadata for "bd update"\n$/,
      ],
      [['mol', 'bond', 'x', 'y'], 2, /^Error: unsupported command "bd mol bond"\n$/],
      [['create'], 1, /^Error: title required/],
      [['create', 'x', '-p', '9'], 1, /^Error: invalid priority "9"/],
      [['close', 'nope-9'], 1, /^Error closing nope-9: /],
      [['create', 'x', '--readonly'], 1, /^Error: operation 'create' is not allowed in read-only mode\n$/],
    ];
    for (const [args, code, re] of cases) {
      const r = await city.bd(args);
      t.equal(r.code, code, `${args.join(' ')}: exit ${code}`);
      t.match(r.stderr, re, args.join(' '));
      t.equal(r.stderr.split('\n').length, 2, 'one line');
    }
    const after = (await city.sup.call('GET', `/v0/city/${city.name}/beads?all=true&limit=1000`)).body;
    t.same(after, before, 'no refusal changed the store');
    const down = await city.bd(['show', a.id], { GC_API: 'http://127.0.0.1:1' });
    t.equal(down.code, 1);
    t.match(down.stderr, /^Error: cannot reach the supervisor at http:\/\/127\.0\.0\.1:1: .*\n$/);
  });
});
