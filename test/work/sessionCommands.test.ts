import t from 'tap';
import { eventually } from '../helpers/supervisor.ts';
import { listShapeErrors, showShapeErrors } from './bdShapes.ts';
import { workCity } from './helpers.ts';

/**
 * `gc session peek|nudge`, `gc nudge`, `gc handoff` and `gc runtime drain|drain-check` (the built binary,
 * on its fast path) against a real supervisor and a real tmux session: the good paths, bad arguments (one
 * line, exit 1, nothing changed) and a supervisor that is down.
 */

t.setTimeout(180_000);

t.test('session commands agents run', async (t) => {
  // A session that shows a line, then echoes what is typed into it (the terminal's echo).
  const city = await workCity(t, { startCommand: 'echo peek-marker; sleep 600' });
  const made = await city.sup.call('POST', `/v0/city/${city.name}/sessions`, { alias: 'worker' });
  t.ok(made.status < 300, JSON.stringify(made.body));
  const mailCount = async (who: string): Promise<string> => (await city.gc(['mail', 'count', who])).stdout;

  await t.test('gc session peek: the screen, --lines or a numeric second argument', async (t) => {
    await eventually(
      async () => (await city.gc(['session', 'peek', 'worker'])).stdout.includes('peek-marker'),
      30_000,
    );
    const plain = await city.gc(['session', 'peek', 'worker']);
    t.same([plain.code, plain.stderr], [0, '']);
    t.match(plain.stdout, /peek-marker\n/);
    const two = await city.gc(['session', 'peek', 'worker', '50']);
    t.same([two.code, two.stderr], [0, '']);
    t.match(two.stdout, /peek-marker/);
    const flag = await city.gc(['session', 'peek', 'worker/', '--lines', '50']);
    t.match(flag.stdout, /peek-marker/, 'a trailing / is trimmed');
    for (const bad of [
      [],
      ['worker', '5', 'x'],
      ['worker', '--lines', 'ten'],
      ['worker', '5', '--lines', '5'],
    ]) {
      const r = await city.gc(['session', 'peek', ...bad]);
      t.equal(r.code, 1, bad.join(' '));
      t.match(r.stderr, /^gc session peek: [^\n]+\n$/, bad.join(' '));
    }
    const flag2 = await city.gc(['session', 'peek', 'worker', '--bogus']);
    t.same(
      [flag2.code, flag2.stdout, flag2.stderr],
      [2, '', 'gc session peek: unsupported flag --bogus for "gc session peek"\n'],
      'an unsupported flag: exit 2, named',
    );
    const unknown = await city.gc(['session', 'peek', 'nobody']);
    t.same(
      [unknown.code, unknown.stdout, unknown.stderr],
      [1, '', 'gc session peek: session not found: "nobody"\n'],
    );
  });

  await t.test('gc session nudge and gc nudge <target>: the text reaches the session', async (t) => {
    const r = await city.gc(['session', 'nudge', 'worker', 'hello', 'from', 'a', 'test']);
    t.same([r.code, r.stdout, r.stderr], [0, 'Nudged worker\n', '']);
    const top = await city.gc(['nudge', 'worker/', 'second-nudge']);
    t.same([top.code, top.stdout, top.stderr], [0, 'Nudged worker\n', '']);
    const queued = await city.gc(['session', 'nudge', 'worker', 'third', '--delivery', 'queue']);
    t.same([queued.code, queued.stdout], [0, 'Queued nudge for worker\n']);
    await eventually(async () => {
      const screen = (await city.gc(['session', 'peek', 'worker'])).stdout;
      return screen.includes('hello from a test') && screen.includes('second-nudge');
    }, 30_000);
    t.pass('both nudges are on the screen');
    const before = (await city.gc(['session', 'peek', 'worker'])).stdout;
    for (const bad of [
      ['session', 'nudge', 'worker'],
      ['session', 'nudge', 'worker', 'x', '--delivery', 'soon'],
      ['nudge', 'nobody', 'hi'],
      ['session', 'nudge', 'nobody', 'hi'],
    ]) {
      const b = await city.gc(bad);
      t.equal(b.code, 1, bad.join(' '));
      t.match(b.stderr, /^gc (session nudge|nudge): [^\n]+\n$/, bad.join(' '));
      t.equal(b.stdout, '');
    }
    t.equal((await city.gc(['session', 'peek', 'worker'])).stdout, before, 'refused nudges typed nothing');
    const missing = await city.gc(['nudge', 'nobody', 'hi']);
    t.equal(missing.stderr, 'gc nudge: session not found: "nobody"\n');
  });

  await t.test('gc nudge drain / status: nothing is ever queued', async (t) => {
    const inject = await city.gc(['nudge', 'drain', '--inject']);
    t.same([inject.code, inject.stdout, inject.stderr], [0, '', '']);
    const plain = await city.gc(['nudge', 'drain']);
    t.same([plain.code, plain.stdout], [1, '']);
    const status = await city.gc(['nudge', 'status', 'worker']);
    t.equal(status.code, 0, status.stderr);
    t.match(status.stdout, /^AGENT\s+PENDING\s+IN_FLIGHT\s+DEAD\s+SESSION\nworker\s+0\s+0\s+0\s+\S+\n$/);
    const none = await city.gc(['nudge']);
    t.same(
      [none.code, none.stderr],
      [1, 'gc nudge: missing subcommand (status, drain) or <target> <message>\n'],
    );
  });

  await t.test('gc status: text and --json; gc convoy show is convoy status', async (t) => {
    const json = await city.gc(['status', '--json']);
    t.equal(json.code, 0, json.stderr);
    const s = JSON.parse(json.stdout) as Record<string, unknown>;
    t.match(s, {
      city_name: city.name,
      city_path: city.dir,
      controller: { running: true },
      suspended: false,
      agents: [],
      rigs: [],
      summary: { active_sessions: 1, suspended_sessions: 0 },
    });
    t.same(Object.keys(s).sort(), [
      'agents',
      'city_name',
      'city_path',
      'controller',
      'rigs',
      'summary',
      'suspended',
    ]);
    const text = await city.gc(['status']);
    t.equal(text.code, 0, text.stderr);
    t.ok(
      text.stdout.startsWith(
        `${city.name}  ${city.dir}\nController: running (supervisor)\nSuspended:  no\n\nAgents:\n`,
      ),
      text.stdout,
    );
    t.ok(text.stdout.endsWith(' agents running\n\nSessions: 1 active, 0 suspended\n'), text.stdout);
    const byPath = await city.gc(['status', city.dir, '--json']);
    t.equal(JSON.parse(byPath.stdout).city_name, city.name, 'a city directory as the argument');
    const bad = await city.gc(['status', 'nowhere-city']);
    t.equal(bad.code, 1);
    t.match(bad.stderr, /^gc status: [^\n]+\n$/);
    const down = await city.gc(['status'], { GC_API: 'http://127.0.0.1:1' });
    t.equal(down.code, 1);
    t.match(down.stderr, /^gc status: [^\n]*127\.0\.0\.1:1[^\n]*\n$/);

    const bead = JSON.parse((await city.bd(['create', 'Convoy member', '--json'])).stdout) as { id: string };
    const made = await city.gc(['convoy', 'create', 'batch', bead.id]);
    const cid = /^Created convoy (\S+) /.exec(made.stdout)?.[1];
    t.ok(cid, made.stdout + made.stderr);
    const status = await city.gc(['convoy', 'status', cid!]);
    const show = await city.gc(['convoy', 'show', cid!]);
    t.equal(status.code, 0, status.stderr);
    t.same([show.code, show.stdout], [0, status.stdout]);
  });

  await t.test("gc session new: a session of a template, upstream's line", async (t) => {
    const added = await city.sup.call('POST', `/v0/city/${city.name}/agents`, {
      name: 'helper',
      provider: 'mock',
    });
    t.equal(added.status, 201, JSON.stringify(added.body));
    const r = await city.gc(['session', 'new', 'helper', '--alias', 'extra', '--no-attach']);
    t.equal(r.code, 0, r.stderr);
    const id = /^Session (\S+) created from template "helper" \(reconciler will start it\)\.\n$/.exec(
      r.stdout,
    )?.[1];
    t.ok(id, r.stdout);
    const s = await city.sup.call('GET', `/v0/city/${city.name}/session/extra`);
    t.match(s.body, { id, template: 'helper' });
    const before = (await city.sup.call('GET', `/v0/city/${city.name}/sessions?state=all`)).body as {
      total: number;
    };
    for (const bad of [
      ['session', 'new'],
      ['session', 'new', 'no-such-template'],
    ]) {
      const b = await city.gc(bad);
      t.equal(b.code, 1, bad.join(' '));
      t.match(b.stderr, /^gc session new: [^\n]+\n$/, bad.join(' '));
    }
    const after = (await city.sup.call('GET', `/v0/city/${city.name}/sessions?state=all`)).body as {
      total: number;
    };
    t.equal(after.total, before.total, 'refused: no session made');
    const down = await city.gc(['session', 'new', 'helper'], { GC_API: 'http://127.0.0.1:1' });
    t.equal(down.code, 1);
    t.match(down.stderr, /^gc session new: [^\n]*127\.0\.0\.1:1[^\n]*\n$/);
  });

  await t.test("inside a session: bd ready, bd show and gc hook give bd's documented shapes", async (t) => {
    const session = { GC_TEMPLATE: 'helper', GC_SESSION_ID: 'x-9', GC_SESSION_NAME: 'x-9', GC_ALIAS: 'x-9' };
    const a = JSON.parse(
      (await city.bd(['create', 'Shape A', '-t', 'bug', '-p', '1', '-d', 'why', '-l', 'x,y', '--json']))
        .stdout,
    ) as { id: string };
    const b = JSON.parse(
      (await city.bd(['create', 'Shape B', '--metadata', '{"gc.routed_to":"helper"}', '--json'])).stdout,
    ) as { id: string };
    t.equal((await city.bd(['dep', 'add', a.id, b.id])).code, 0, 'a depends on b');
    const ready = JSON.parse((await city.bd(['ready', '--json'], session)).stdout) as unknown;
    t.same(listShapeErrors(ready), [], 'bd ready --json');
    t.ok((ready as { id: string }[]).some((i) => i.id === b.id));
    const list = JSON.parse((await city.bd(['list', '--json', '--all'])).stdout) as unknown;
    t.same(listShapeErrors(list), [], 'bd list --json (a carries an edge record)');
    const show = JSON.parse((await city.bd(['show', a.id, b.id, '--json'])).stdout) as unknown;
    t.same(showShapeErrors(show), [], 'bd show --json');
    t.match(show, [
      { id: a.id, labels: ['x', 'y'], dependencies: [{ id: b.id, dependency_type: 'blocks' }] },
      { id: b.id },
    ]);
    const hook = await city.gc(['hook'], session);
    t.equal(hook.code, 0, hook.stderr);
    t.same(listShapeErrors(JSON.parse(hook.stdout)), [], 'gc hook prints a bd ready element');
    t.match(JSON.parse(hook.stdout), [{ id: b.id }], 'routed to the template');
    for (const id of [a.id, b.id]) await city.bd(['close', id, '--force']);
  });

  await t.test('gc handoff --target: mail, then the session is killed and restarted', async (t) => {
    const before = await mailCount('worker');
    for (const bad of [
      ['handoff'],
      ['handoff', 'a', 'b', 'c', '--target', 'worker'],
      ['handoff', 'subject', '--target', 'nobody'],
    ]) {
      const b = await city.gc(bad);
      t.equal(b.code, 1, bad.join(' '));
      t.match(b.stderr, /^gc handoff: [^\n]+\n$/, bad.join(' '));
    }
    const outside = await city.gc(['handoff', 'context cycle'], {
      GC_SESSION_ID: '',
      GC_ALIAS: '',
      GC_AGENT: '',
    });
    t.same(
      [outside.code, outside.stderr],
      [1, 'gc handoff: not in session context (GC_ALIAS/GC_SESSION_ID not set)\n'],
    );
    t.equal(await mailCount('worker'), before, 'refused handoffs sent no mail');
    const r = await city.gc(['handoff', 'new plan', 'see the notes', '--target', 'worker']);
    t.equal(r.code, 0, r.stderr);
    t.match(r.stdout, /^Handoff: sent mail \S+ to worker, killed session \(reconciler will restart\)\n$/);
    const inbox = await city.gc(['mail', 'inbox', 'worker']);
    t.match(inbox.stdout, /new plan\s+see the notes\n$/);
    // The reconciler starts the process again: its first line shows on a fresh screen.
    await eventually(async () => {
      const s = await city.sup.call('GET', `/v0/city/${city.name}/session/worker`);
      return (s.body as { running?: boolean }).running === true;
    }, 30_000);
    t.pass('running again');
  });

  await t.test('gc runtime drain-check / drain', async (t) => {
    const check = await city.gc(['runtime', 'drain-check'], { GC_SESSION_ID: 'worker' });
    t.same([check.code, check.stdout, check.stderr], [1, '', '']);
    for (const bad of [
      ['runtime', 'drain'],
      ['runtime', 'drain', 'nobody'],
      ['runtime', 'drain', 'a', 'b'],
    ]) {
      const b = await city.gc(bad);
      t.equal(b.code, 1, bad.join(' '));
      t.match(b.stderr, /^gc runtime drain: [^\n]+\n$/, bad.join(' '));
    }
    const r = await city.gc(['runtime', 'drain', 'worker']);
    t.same([r.code, r.stdout, r.stderr], [0, "Draining session 'worker'\n", '']);
    await eventually(async () => {
      const s = await city.sup.call('GET', `/v0/city/${city.name}/session/worker`);
      return s.status === 404 || (s.body as { state?: string }).state === 'closed';
    }, 30_000);
    t.pass('the drained session closed');
  });

  await t.test('a supervisor that is down: one line naming the address', async (t) => {
    const down = { GC_API: 'http://127.0.0.1:1', GC_SESSION_ID: 'worker', GC_ALIAS: 'worker' };
    for (const argv of [
      ['session', 'peek', 'worker'],
      ['session', 'nudge', 'worker', 'hi'],
      ['nudge', 'worker', 'hi'],
      ['nudge', 'status', 'worker'],
      ['handoff', 'x', '--target', 'worker'],
      ['runtime', 'drain', 'worker'],
    ]) {
      const r = await city.gc(argv, down);
      t.equal(r.code, 1, argv.join(' '));
      t.match(
        r.stderr,
        /^gc [a-z -]+: cannot reach the supervisor at http:\/\/127\.0\.0\.1:1: [^\n]*\n$/,
        argv.join(' '),
      );
    }
  });
});
