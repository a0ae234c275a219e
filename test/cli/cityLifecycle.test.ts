/**
 * Issue 28: the city lifecycle commands of `gc` (init, register, start, stop, restart, suspend, resume,
 * unregister), driven through the built binary against a real supervisor with real tmux sessions. Each
 * command is a client of the API; what it did is checked through the API, the city directory, and the
 * processes left on the city's tmux server.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import { until } from '../helpers/until.ts';
import { runGc, type GcResult } from './helpers/gc.ts';
import { startSupervisorProc, type SupervisorProc } from './helpers/supervisorProc.ts';

const hasTmux = (): boolean => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** The pids of the panes on the city's tmux server; empty when the server is gone. */
function panePids(sup: SupervisorProc, city: string): number[] {
  try {
    const out = execFileSync(
      'tmux',
      ['-L', tmuxSocketFor(city, sup.home), 'list-panes', '-a', '-F', '#{pane_pid}'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    return out.trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The processes (pid and command line) whose command line names `marker`, from ps. */
function processesNaming(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.includes(marker) && !l.includes('ps -eo'))
    .map((l) => l.trim());
}

/** A failure is one line on stderr, nothing on stdout, and a non-zero status. */
function failsWithOneLine(t: Test, r: GcResult, pattern: RegExp, what: string): void {
  t.not(r.code, 0, `${what}: non-zero exit`);
  t.equal(r.stdout, '', `${what}: nothing on stdout`);
  t.equal(r.stderr.split('\n').filter(Boolean).length, 1, `${what}: one line on stderr (${r.stderr})`);
  t.match(r.stderr, pattern, `${what}: says why`);
}

const CITY = 'lifecyc';
// A marker only this test's agent process carries on its command line, so ps finds exactly it.
const MARKER = `gc-lifecycle-${process.pid}`;

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it');
  else t.plan(0, 'tmux is not on PATH: the city lifecycle is not tested end to end here');
} else {
  t.test('init, register, start, suspend, stop, restart and unregister a city', async (t) => {
    const sup = await startSupervisorProc(t, { env: { GC_SESSION_RUNTIME: 'tmux' } });
    t.teardown(() => {
      try {
        execFileSync('tmux', ['-L', tmuxSocketFor(CITY, sup.home), 'kill-server'], { stdio: 'ignore' });
      } catch {
        // No server left.
      }
    });
    mkdirSync(sup.cities, { recursive: true });
    const dir = join(sup.cities, CITY);
    const toml = join(sup.cities, 'lifecycle.toml');
    writeFileSync(
      toml,
      [
        '[workspace]',
        // One process (node, carrying the marker) that lives until it is stopped.
        `start_command = '${process.execPath} -e "setInterval(() => {}, 1000)" ${MARKER}'`,
        '',
        '[daemon]',
        'shutdown_timeout = "1s"',
        '',
        '[[agent]]',
        'name = "mayor"',
        '',
        '[[named_session]]',
        'template = "mayor"',
        'mode = "always"',
        '',
      ].join('\n'),
    );
    const gc = (args: string[]): Promise<GcResult> =>
      runGc(args, { env: sup.env, cwd: sup.cities, killAfterMs: 60_000 });
    const cities = async () =>
      (
        (await sup.call('GET', '/v0/cities')).body as {
          items: Array<{ name: string; running: boolean; status?: string }>;
        }
      ).items;

    // init writes the city; it talks to no supervisor.
    const init = await gc(['init', dir, '--file', toml]);
    t.equal(init.code, 0, init.stderr);
    t.match(init.stdout, /^\[1\/6\] Creating runtime scaffold\n/);
    t.match(init.stdout, /Welcome to Gas City!\nInitialized city "lifecyc" from lifecycle\.toml\.\n$/);
    for (const f of [
      'city.toml',
      'pack.toml',
      '.gc/cache',
      '.gc/runtime',
      '.gc/system',
      'agents',
      'formulas',
    ])
      t.ok(existsSync(join(dir, f)), `init wrote ${f}`);
    t.same(await cities(), [], 'init registered nothing');
    failsWithOneLine(
      t,
      await gc(['init', dir, '--file', toml]),
      /^gc init: already initialized\n$/,
      'a second init',
    );
    const real = realpathSync(dir);

    // A dry run lists the agent and starts nothing.
    const dry = await gc(['start', dir, '--dry-run']);
    t.equal(dry.code, 0, dry.stderr);
    t.match(dry.stdout, /^Dry-run: 1 agent\(s\) would start in city "lifecyc"\n\n {2}mayor\n/);
    t.match(dry.stdout, /No side effects executed \(--dry-run\)\.\n$/);
    t.same(await cities(), [], 'a dry run registers nothing');

    // register waits until the supervisor started the city, and is idempotent.
    const reg = await gc(['register', dir]);
    t.equal(reg.code, 0, reg.stderr);
    t.equal(reg.stdout, `Registered city '${CITY}' (${real})\n`);
    t.same(
      (await cities()).map((c) => [c.name, c.running]),
      [[CITY, true]],
      'registered and running',
    );
    const again = await gc(['register', dir]);
    t.equal(again.code, 0, again.stderr);
    t.equal(again.stdout, `Registered city '${CITY}' (${real})\n`, 'registering again says the same');
    t.equal((await cities()).length, 1, 'and registers nothing new');

    const start = await gc(['start', dir]);
    t.equal(start.code, 0, start.stderr);
    t.equal(start.stdout, 'City started under supervisor.\n');
    const pids = await until(
      'the mayor session process',
      async () => {
        const p = panePids(sup, CITY);
        return p.length > 0 && p;
      },
      30_000,
      100,
    );
    t.equal(pids.length, 1, 'one session on the city’s tmux server');
    t.ok(processesNaming(MARKER).length > 0, 'the agent process runs');

    const status = await runGc(['status'], { env: sup.env, cwd: dir });
    t.equal(status.code, 0, status.stderr);
    t.match(status.stdout, new RegExp(`^${CITY} {2}`), 'gc status, from inside the city directory');

    // suspend / resume toggle workspace.suspended through the API.
    const suspended = await gc(['suspend', dir]);
    t.equal(suspended.stdout, `City suspended (${real})\n`, suspended.stderr);
    t.equal(((await sup.call('GET', `/v0/city/${CITY}`)).body as { suspended: boolean }).suspended, true);
    // A suspended city: hook and prime, which agents run every turn, give nothing.
    const inCity = { env: { ...sup.env, GC_CITY: CITY }, cwd: dir };
    const hookSuspended = await runGc(['hook', 'mayor'], inCity);
    t.same(
      [hookSuspended.code, hookSuspended.stdout, hookSuspended.stderr],
      [1, '', 'gc hook: city is suspended\n'],
    );
    const injectSuspended = await runGc(['hook', 'mayor', '--inject'], inCity);
    t.same([injectSuspended.code, injectSuspended.stdout], [0, ''], 'hook --inject is silent');
    const primeSuspended = await runGc(['prime', 'mayor'], inCity);
    t.same([primeSuspended.code, primeSuspended.stdout], [0, ''], 'prime prints no prompt');
    const resumed = await gc(['resume', dir]);
    t.equal(resumed.stdout, `City resumed (${real})\n`, resumed.stderr);
    t.equal(((await sup.call('GET', `/v0/city/${CITY}`)).body as { suspended: boolean }).suspended, false);
    t.not((await runGc(['prime', 'mayor'], inCity)).stdout, '', 'a resumed city primes again');

    // stop ends every session the city started: no process of it is left.
    const stop = await gc(['stop', dir]);
    t.equal(stop.code, 0, stop.stderr);
    t.equal(stop.stdout, 'City stopped.\n');
    await until('the session processes to end', async () => pids.every((p) => !alive(p)), 15_000, 100);
    // The city's tmux server (its argv carries the start command, so ps names it too) goes with them.
    await until(
      'no process of the city to be left',
      async () => panePids(sup, CITY).length === 0 && processesNaming(MARKER).length === 0,
      15_000,
      100,
    );
    t.same(panePids(sup, CITY), [], 'no tmux server left');
    t.same(processesNaming(MARKER), [], 'no process of the city is left');
    t.same(
      (await cities()).map((c) => [c.name, c.running, c.status]),
      [[CITY, false, 'stopped']],
      'still registered, stopped',
    );
    const stopAgain = await gc(['stop', dir]);
    t.equal(stopAgain.stdout, 'City stopped.\n', 'stopping a stopped city is not an error');

    // restart = stop, then start: the session comes back.
    const restart = await gc(['restart', dir]);
    t.equal(restart.code, 0, restart.stderr);
    t.equal(restart.stdout, 'City stopped.\nCity started under supervisor.\n');
    const back = await until(
      'the session to come back',
      async () => {
        const p = panePids(sup, CITY);
        return p.length > 0 && p;
      },
      30_000,
      100,
    );
    t.ok(back.every(alive), 'the restarted session runs');

    // unregister: the controller stops, the directory stays.
    const unreg = await gc(['unregister', dir]);
    t.equal(unreg.code, 0, unreg.stderr);
    t.equal(unreg.stdout, `Unregistered city '${CITY}' (${real})\n`);
    t.same(await cities(), [], 'no longer registered');
    await until('the sessions to end with the city', async () => back.every((p) => !alive(p)), 15_000, 100);
    t.ok(existsSync(join(dir, 'city.toml')), 'the directory is left in place');

    // upstream's restart under a supervisor: unregister, then register again.
    const rereg = await gc(['register', dir]);
    t.equal(rereg.code, 0, rereg.stderr);
    t.equal(rereg.stdout, `Registered city '${CITY}' (${real})\n`, 'registered again');
    const third = await until(
      'the session of the registered-again city',
      async () => {
        const p = panePids(sup, CITY);
        return p.length > 0 && p;
      },
      30_000,
      100,
    );
    const last = await gc(['unregister', dir]);
    t.equal(last.code, 0, last.stderr);
    await until('its sessions to end', async () => third.every((p) => !alive(p)), 15_000, 100);
    t.same(await cities(), [], 'unregistered again');
  });

  t.test('bad input is one line on stderr and changes nothing', async (t) => {
    const sup = await startSupervisorProc(t);
    mkdirSync(sup.cities, { recursive: true });
    const gc = (args: string[]): Promise<GcResult> => runGc(args, { env: sup.env, cwd: sup.cities });
    const empty = join(sup.cities, 'empty');
    mkdirSync(empty);

    failsWithOneLine(
      t,
      await gc(['register', empty]),
      /is not a city directory \(no city\.toml found\)/,
      'register without city.toml',
    );
    failsWithOneLine(
      t,
      await gc(['start', empty]),
      /is not a city directory \(no city\.toml found\)/,
      'start without city.toml',
    );
    t.same(readdirSync(empty), [], 'the directory is untouched');
    failsWithOneLine(
      t,
      await gc(['start', join(sup.cities, 'nowhere')]),
      /not a city directory: .*nowhere/,
      'an unknown path',
    );
    t.notOk(existsSync(join(sup.cities, 'nowhere')), 'nothing was created');
    failsWithOneLine(t, await gc(['stop']), /not in a city directory/, 'stop outside a city');
    failsWithOneLine(t, await gc(['start', empty, '--bogus']), /--bogus/, 'an unknown flag');
    failsWithOneLine(
      t,
      await gc(['init', join(sup.cities, 'fresh')]),
      /--provider <name>.*--file <city\.toml>/,
      'init without a mode on a non-TTY',
    );
    t.notOk(existsSync(join(sup.cities, 'fresh')), 'init created nothing');

    // A city that is not registered.
    const init = await gc(['init', join(sup.cities, 'loose'), '--provider', 'claude']);
    t.equal(init.code, 0, init.stderr);
    t.match(init.stdout, /Initialized city "loose" with default provider "claude"\.\n$/);
    for (const cmd of ['stop', 'suspend', 'resume', 'unregister', 'restart'])
      failsWithOneLine(
        t,
        await gc([cmd, join(sup.cities, 'loose')]),
        /city not registered with supervisor/,
        `${cmd} of an unregistered city`,
      );
    failsWithOneLine(
      t,
      await gc(['register', join(sup.cities, 'loose'), '--name', 'no spaces']),
      /invalid city name "no spaces"/,
      'register under an invalid name',
    );
    t.same(
      ((await sup.call('GET', '/v0/cities')).body as { items: unknown[] }).items,
      [],
      'still nothing registered',
    );

    // The supervisor is down: one line naming the address.
    const down = await runGc(['start', join(sup.cities, 'loose')], {
      env: { ...sup.env, GC_API: 'http://127.0.0.1:9' },
      cwd: sup.cities,
    });
    failsWithOneLine(t, down, /127\.0\.0\.1:9/, 'a supervisor that is down');
  });
}
