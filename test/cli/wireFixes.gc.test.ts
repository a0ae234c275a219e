/**
 * Issue 32's behaviours as a user meets them through the built `gc` and `bd` (a real supervisor process,
 * real tmux, real files): clearing an assignee, a parent's child in `bd dep tree`, a hand edit of city.toml,
 * a manual session the pool leaves alone, an idle stream's first frame, a repeated extmsg idempotency key
 * (also across a supervisor restart), /health's build_id, and a city stop and an unregister that leave no
 * process behind.
 * The API-level tests of the same behaviours are in test/beads, test/agents, test/config, test/extmsg,
 * test/supervisor and test/events.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import { testAdapter } from '../extmsg/helpers.ts';
import { hasTmux } from '../sessions/e2eKit.ts';
import { until } from '../helpers/until.ts';
import { jsonLines } from './helpers/gc.ts';
import { workCity, type WorkCity } from '../work/helpers.ts';

t.setTimeout(8 * 60_000);

type Issue = Record<string, unknown> & { id: string };
const issues = (stdout: string): Issue[] => JSON.parse(stdout) as Issue[];

interface SessionRow {
  id: string;
  alias?: string;
  template?: string;
  running: boolean;
  state: string;
}

const sessions = async (city: WorkCity): Promise<SessionRow[]> => {
  const r = await city.gc(['session', 'list', '--json']);
  if (r.code !== 0) throw new Error(`gc session list: ${r.stderr}`);
  return jsonLines(r.stdout) as unknown as SessionRow[];
};

/** Whether `pid` is a live process (a zombie counts as gone). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(execFileSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }));
  } catch {
    return false;
  }
};

/** The tmux server of the city answers `ls` (exit 0). */
const tmuxUp = (socket: string): boolean => {
  try {
    execFileSync('tmux', ['-L', socket, 'ls'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: the gc-level checks of issue 32 need real tmux');
} else {
  t.test('issue 32 through gc and bd', async (t) => {
    // A heartbeat far longer than any wait below: a first frame that comes at once is not the heartbeat's.
    const city = await workCity(t, { startCommand: "sh -c 'exec sleep 600'", heartbeat: '60s' });
    const socket = tmuxSocketFor(city.name, city.sup.home);

    await t.test('bd update --assignee "" clears the assignee, answered as bd answers', async (t) => {
      const made = await city.bd(['create', 'hand me over', '--assignee', 'bob', '--json']);
      t.equal(made.code, 0, made.stderr);
      const id = (JSON.parse(made.stdout) as Issue).id;
      t.equal(issues((await city.bd(['show', id, '--json'])).stdout)[0]!.assignee, 'bob');
      const cleared = await city.bd(['update', id, '--assignee', '']);
      t.same(
        [cleared.code, cleared.stdout, cleared.stderr],
        [0, `✓ Updated issue: ${id} — hand me over\n`, ''],
      );
      const shown = issues((await city.bd(['show', id, '--json'])).stdout)[0]!;
      t.equal(shown.id, id);
      t.notOk('assignee' in shown, 'bd show --json: no assignee left (bd omits an empty one)');
      await city.bd(['update', id, '--assignee', 'carol']);
      const json = await city.bd(['update', id, '--assignee', '', '--json']);
      t.equal(json.code, 0, json.stderr);
      const answered = issues(json.stdout);
      t.same(
        answered.map((i) => [i.id, 'assignee' in i]),
        [[id, false]],
        '--json answers the re-read issue without an assignee',
      );
      const unassigned = await city.bd(['list', '--no-assignee', '--json']);
      t.equal(unassigned.code, 0, unassigned.stderr);
      t.ok(
        issues(unassigned.stdout).some((i) => i.id === id),
        'bd list --no-assignee finds it',
      );
      const api = await city.sup.call('GET', `/v0/city/${city.name}/bead/${id}`);
      t.notOk('assignee' in (api.body as object), 'the API agrees');
    });

    await t.test('bd dep tree shows a parent with its child and the parent-child edge', async (t) => {
      const parent = (JSON.parse((await city.bd(['create', 'epic', '--json'])).stdout) as Issue).id;
      const made = await city.bd(['create', 'step', '--parent', parent, '--json']);
      t.equal(made.code, 0, made.stderr);
      const child = (JSON.parse(made.stdout) as Issue).id;
      const up = await city.bd(['dep', 'tree', parent, '--direction', 'up', '--json']);
      t.equal(up.code, 0, up.stderr);
      t.match(issues(up.stdout), [
        { id: parent, depth: 0 },
        { id: child, depth: 1, dependency_type: 'parent-child' },
      ]);
      t.equal(issues(up.stdout).length, 2, 'the root and its one child');
      const text = await city.bd(['dep', 'tree', parent, '--direction', 'up']);
      t.equal(text.stdout, `${parent}: epic [open]\n  └── ${child}: step [open]\n`);
      const down = await city.bd(['dep', 'tree', child, '--json']);
      t.match(
        issues(down.stdout),
        [
          { id: child, depth: 0 },
          { id: parent, depth: 1, dependency_type: 'parent-child' },
        ],
        'down from the child: its parent, through parent-child',
      );
      const both = await city.bd(['dep', 'tree', parent, '--direction', 'both', '--json']);
      t.ok(
        issues(both.stdout).some((i) => i.id === child && i.dependency_type === 'parent-child'),
        'both directions include the child',
      );
      const bad = await city.bd(['dep', 'tree', parent, '--direction', 'sideways']);
      t.equal(bad.code, 1);
      t.match(bad.stderr, /invalid direction "sideways"/);
      const shown = await city.bd(['show', parent]);
      t.match(shown.stdout, new RegExp(`CHILDREN\\n  ↳ ${child}: step \\[open\\]`));
      const graph = (await city.sup.call('GET', `/v0/city/${city.name}/beads/graph/${parent}`)).body as {
        beads: { id: string }[];
        deps: unknown[];
      };
      t.same(
        graph.beads.map((b) => b.id),
        [parent, child],
      );
      t.same(graph.deps, [{ from: parent, to: child, kind: 'parent-child' }], 'the API graph agrees');
    });

    await t.test('a hand edit of city.toml takes effect, or gc config validate names the key', async (t) => {
      const before = await city.gc(['config', 'validate']);
      t.same([before.code, before.stdout], [0, ''], 'nothing to say before an edit');
      appendFileSync(join(city.dir, 'city.toml'), '\n[[agent]]\nname = "polecat"\nmax_active_sessions = 2\n');
      const agents = await until(
        'gc agent list to show the new pool',
        async () => {
          const r = await city.gc(['agent', 'list']);
          return r.code === 0 && /^polecat-1 /m.test(r.stdout) ? r.stdout : undefined;
        },
        20_000,
        100,
      );
      t.match(agents, /^polecat-2 /m, 'the pool of two, without a restart');
      const maintenance = async () =>
        (
          (await city.sup.call('GET', `/v0/city/${city.name}/maintenance/status`)).body as {
            enabled: boolean;
          }
        ).enabled;
      t.equal(await maintenance(), false, 'store maintenance is off by default');
      appendFileSync(join(city.dir, 'city.toml'), '\n[maintenance.dolt]\nenabled = true\n');
      await until('[maintenance.dolt] enabled to take effect', async () => await maintenance(), 20_000, 100);
      t.pass('[maintenance.dolt] enabled = true takes effect without a restart (the issue’s example)');
      appendFileSync(join(city.dir, 'city.toml'), '\n[daemon]\npatrol_interval = "10s"\n');
      const warned = await until(
        'gc config validate to warn',
        async () => {
          const r = await city.gc(['config', 'validate']);
          return r.stdout.includes('daemon.patrol_interval') ? r : undefined;
        },
        20_000,
        100,
      );
      t.equal(warned.code, 0, 'a warning, not an error');
      t.match(
        warned.stdout,
        /^warning: city\.toml: daemon\.patrol_interval: changed since the city started: .* takes it when the city restarts/m,
      );
    });

    let mine = '';
    await t.test('gc session new <agent> is the user’s: the pool never drains it as surplus', async (t) => {
      const made = await city.gc(['session', 'new', 'polecat', '--alias', 'mine']);
      t.equal(made.code, 0, made.stderr);
      const m = /^Session (\S+) created from template "polecat" \(reconciler will start it\)\.\n$/.exec(
        made.stdout,
      );
      t.ok(m, made.stdout);
      mine = m![1]!;
      await until(
        'the manual session to run',
        async () => (await sessions(city)).some((s) => s.id === mine && s.running),
        30_000,
        100,
      );
      // Work routed to the pool wakes a pool session; closing it makes that session surplus, which the
      // reconciler drains on a later tick. Those ticks are what a manual session must outlive.
      const work = await city.bd(['create', 'routed', '--metadata', '{"gc.routed_to":"polecat"}', '--json']);
      t.equal(work.code, 0, work.stderr);
      const pooled = await until(
        'a pool session for the routed work',
        async () =>
          (await sessions(city)).find((s) => s.id !== mine && s.template === 'polecat' && s.running),
        30_000,
        100,
      );
      t.equal(pooled.alias, 'polecat-1');
      t.equal((await city.bd(['close', (JSON.parse(work.stdout) as Issue).id])).code, 0);
      await until(
        'the pool’s surplus to be drained',
        async () => !(await sessions(city)).some((s) => s.id === pooled.id),
        30_000,
        100,
      );
      const left = await sessions(city);
      t.match(
        left.filter((s) => s.template === 'polecat'),
        [{ id: mine, alias: 'mine', running: true, state: 'active' }],
        'the manual session still runs after the pool shrank to nothing',
      );
    });

    await t.test('an idle stream sends its first frame at once, not with the first heartbeat', async (t) => {
      for (const path of [`/v0/city/${city.name}/events/stream`, '/v0/events/stream']) {
        const ac = new AbortController();
        const started = Date.now();
        const res = await fetch(city.sup.url + path, {
          headers: { accept: 'text/event-stream' },
          signal: ac.signal,
        });
        t.equal(res.status, 200, path);
        const reader = res.body!.getReader();
        const first = await Promise.race([
          reader.read().then((r) => new TextDecoder().decode(r.value)),
          new Promise<string>((r) => setTimeout(() => r('(nothing within 10 s)'), 10_000)),
        ]);
        const ms = Date.now() - started;
        ac.abort();
        await reader.cancel().catch(() => undefined);
        t.ok(ms < 10_000, `${path}: first frame after ${ms} ms (heartbeat 60 s)`);
        t.match(first, /^(event: heartbeat\n|:)/, `${path}: a heartbeat or a comment`);
      }
    });

    await t.test(
      'gc extmsg send --idempotency-key: delivered once, the first result again, also after a restart',
      async (t) => {
        const adapter = await testAdapter(t);
        const reg = await city.sup.call('POST', `/v0/city/${city.name}/extmsg/adapters`, {
          provider: 'chat',
          account_id: 'acct',
          callback_url: adapter.url,
        });
        t.equal(reg.status, 201, JSON.stringify(reg.body));
        const where = ['--provider', 'chat', '--account', 'acct', '--conversation', 'C1', '--scope', 'T1'];
        const bind = await city.gc(['extmsg', 'bind', ...where, '--session', mine]);
        t.equal(bind.code, 0, bind.stderr);
        const send = (text: string, key: string) =>
          city.gc(['extmsg', 'send', mine, text, ...where, '--idempotency-key', key]);
        const first = await send('only once', 'K1');
        t.equal(first.code, 0, first.stderr);
        t.match(jsonLines(first.stdout), [{ Receipt: { Delivered: true } }]);
        t.equal(adapter.requests.length, 1);
        t.equal(adapter.requests[0]!.IdempotencyKey, 'K1', 'the key reaches the adapter');
        const again = await send('only once', 'K1');
        t.same([again.code, again.stdout], [0, first.stdout], 'the same key: the first result');
        t.equal(adapter.requests.length, 1, 'delivered once');
        const other = await send('something else', 'K1');
        t.equal(other.code, 1);
        t.match(other.stderr, /^gc extmsg send: .*idempotency_mismatch/);
        t.equal(other.stdout, '');

        const health = async () =>
          (await city.sup.call('GET', '/health')).body as { build_id?: string; uptime_sec: number };
        const status = async () =>
          JSON.parse((await city.gc(['supervisor', 'status', '--json'])).stdout) as { pid: number };
        const before = { health: await health(), status: await status() };
        t.match(before.health.build_id, /^[0-9a-f]{7,}(-dirty)?$/, '/health names the build');

        await city.sup.stop('SIGTERM');
        const down = await send('only once', 'K1');
        t.equal(down.code, 1, 'a supervisor that is down');
        t.match(
          down.stderr,
          /^gc extmsg send: [^\n]*127\.0\.0\.1:\d+[^\n]*\n$/,
          'one line naming the address',
        );
        await city.sup.start();
        await until(
          'the city to run again',
          async () => {
            const r = await city.sup.call('GET', '/v0/cities').catch(() => undefined);
            const items = (r?.body as { items?: { name: string; running: boolean }[] } | undefined)?.items;
            return items?.some((c) => c.name === city.name && c.running) ?? false;
          },
          30_000,
          100,
        );
        const after = { health: await health(), status: await status() };
        t.not(after.status.pid, before.status.pid, 'gc supervisor status: a new pid after the restart');
        t.ok(after.health.uptime_sec <= before.health.uptime_sec, '/health uptime starts again');
        t.equal(after.health.build_id, before.health.build_id, 'the same build');

        const restarted = await send('only once', 'K1');
        t.same([restarted.code, restarted.stdout], [0, first.stdout], 'the key survives the restart');
        t.equal(adapter.requests.length, 1, 'still delivered once');
        const fresh = await send('only once', 'K2');
        t.equal(fresh.code, 0, fresh.stderr);
        t.equal(adapter.requests.length, 2, 'a new key is a new delivery');
        t.ok(
          (await sessions(city)).some((s) => s.id === mine && s.running),
          'the restarted supervisor adopted the running session',
        );
      },
    );

    await t.test('gc city stop ends every session of the city; the city stays registered', async (t) => {
      const dir = join(city.sup.cities, 'beta');
      const socketB = tmuxSocketFor('beta', city.sup.home);
      t.teardown(() => {
        try {
          execFileSync('tmux', ['-L', socketB, 'kill-server'], { stdio: 'ignore' });
        } catch {
          // No server left: what the test wants.
        }
      });
      const made = await city.gc([
        'city',
        'create',
        dir,
        '--start-command',
        "sh -c 'exec sleep 600'",
        '--wait',
      ]);
      t.equal(made.code, 0, made.stderr);
      const session = await city.sup.call('POST', '/v0/city/beta/sessions', { alias: 'keeper' });
      t.ok(session.status < 300, JSON.stringify(session.body));
      const pids = await until(
        'the session to run on tmux',
        async () => {
          if (!tmuxUp(socketB)) return undefined;
          const out = execFileSync(
            'tmux',
            ['-L', socketB, 'list-panes', '-a', '-F', '#{pane_dead} #{pane_pid}'],
            {
              encoding: 'utf8',
            },
          );
          const live = out
            .split('\n')
            .filter((l) => l.startsWith('0 '))
            .map((l) => Number(l.slice(2)));
          return live.length > 0 ? live : undefined;
        },
        30_000,
        100,
      );
      const stopped = await city.gc(['city', 'stop', 'beta']);
      t.same([stopped.code, stopped.stdout, stopped.stderr], [0, 'City stopped.\n', '']);
      await until(
        'beta’s tmux server and session processes to be gone',
        async () => !tmuxUp(socketB) && !pids.some(alive),
        15_000,
        100,
      );
      t.pass('no tmux server, no session process');
      const cities = await city.gc(['cities', '--json']);
      t.match(
        jsonLines(cities.stdout).filter((c) => c.name === 'beta'),
        [{ name: 'beta', running: false }],
        'still registered, not running',
      );
      const ghost = await city.gc(['city', 'stop', 'ghost']);
      t.equal(ghost.code, 1);
      t.match(ghost.stderr, /^gc city stop: [^\n]+\n$/, 'one line');
    });

    await t.test('gc city unregister leaves no process behind, and the directory', async (t) => {
      t.ok(tmuxUp(socket), 'the city’s tmux server runs');
      const panePids = execFileSync('tmux', ['-L', socket, 'list-panes', '-a', '-F', '#{pane_pid}'], {
        encoding: 'utf8',
      })
        .split('\n')
        .filter((l) => l !== '')
        .map(Number);
      t.ok(panePids.length > 0 && panePids.every(alive), `agent processes ${panePids.join(' ')}`);
      const gone = await city.gc(['city', 'unregister', city.name, '--wait']);
      t.equal(gone.code, 0, gone.stderr);
      t.match(jsonLines(gone.stdout), [{ type: 'request.result.city.unregister', subject: city.name }]);
      await until(
        'the tmux server and the agent processes to be gone',
        async () => !tmuxUp(socket) && !panePids.some(alive),
        15_000,
        100,
      );
      t.pass('no tmux server, no agent process');
      t.ok(existsSync(join(city.dir, 'city.toml')), 'the directory stays');
      const listed = await city.gc(['cities']);
      t.notMatch(listed.stdout, new RegExp(`\\b${city.name}\\b`), 'no longer registered');
    });
  });
}
