import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { GcProcess, isolatedEnv, jsonLines, runGc } from './helpers/gc.ts';

/** `gc supervisor run|start|stop|status` as a user runs them, each test with its own $GC_HOME. */

t.setTimeout(5 * 60_000);

async function home(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-cli-svhome-'));
  t.teardown(async () => {
    // Never leave a daemon behind, whatever the test did.
    await runGc(['supervisor', 'stop', '--home', dir], { env: isolatedEnv(dir) });
    await rm(dir, { recursive: true, force: true });
  });
  return dir;
}

/** A loopback port held open by the test (so a supervisor cannot bind it). */
async function busyPort(t: Test): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => srv.close(() => r())));
  const addr = srv.address();
  return typeof addr === 'object' && addr ? addr.port : 0;
}

/** True while the pid is a live process (a zombie, exited but not reaped by its new parent, is not). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
};

t.test('start, status, start again, stop: the daemon life cycle', async (t) => {
  const h = await home(t);
  const env = isolatedEnv(h);
  const sv = (...args: string[]) => runGc(['supervisor', ...args], { env });

  const none = await sv('status');
  t.same([none.code, none.stdout, none.stderr], [1, 'not running\n', '']);
  const noStop = await sv('stop');
  t.same(
    [noStop.code, noStop.stdout, noStop.stderr],
    [1, '', 'gc supervisor stop: supervisor is not running\n'],
  );

  const started = await sv('start', '--port', '0', '--tick', '200ms');
  t.equal(started.code, 0, started.stderr);
  const url = started.stdout.trim();
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.ok((await fetch(`${url}/health`)).ok, 'it answers /health');
  const pid = Number(await readFile(join(h, 'supervisor.pid'), 'utf8'));
  t.ok(alive(pid), 'the pid file names a live process');
  t.match(JSON.parse(await readFile(join(h, 'supervisor.json'), 'utf8')), { pid, url });
  t.ok(existsSync(join(h, 'supervisor.log')), 'it logs to $GC_HOME/supervisor.log');

  const status = await sv('status');
  t.same([status.code, status.stdout], [0, `running\nurl: ${url}\npid: ${pid}\n`]);
  const json = await sv('status', '--json');
  t.same(jsonLines(json.stdout), [{ running: true, healthy: true, pid, url }]);

  const again = await sv('start');
  t.same(
    [again.code, again.stdout, again.stderr],
    [0, `${url}\n`, `gc supervisor start: already running (pid ${pid})\n`],
  );

  const cities = await runGc(['cities', '--json'], { env });
  t.same(
    [cities.code, cities.stdout, cities.stderr],
    [0, '', ''],
    'gc finds it through $GC_HOME/supervisor.json',
  );

  const stopped = await sv('stop');
  t.same([stopped.code, stopped.stdout, stopped.stderr], [0, `stopped (pid ${pid})\n`, '']);
  t.notOk(alive(pid), 'the process has exited');
  t.notOk(existsSync(join(h, 'supervisor.pid')), 'pid file removed');
  t.notOk(existsSync(join(h, 'supervisor.json')), 'supervisor.json removed by the graceful stop');
  t.match(await readFile(join(h, 'supervisor.log'), 'utf8'), /SIGTERM, stopping[\s\S]*stopped/);
  const after = await sv('status');
  t.same([after.code, after.stdout], [1, 'not running\n']);
});

t.test('a start that cannot listen fails with the log tail, leaving no pid file', async (t) => {
  const h = await home(t);
  const port = await busyPort(t);
  const r = await runGc(['supervisor', 'start', '--port', String(port)], { env: isolatedEnv(h) });
  t.same([r.code, r.stdout], [1, '']);
  t.match(
    r.stderr,
    /^gc supervisor start: the supervisor exited \(exit status 1\); see .*supervisor\.log:\n[\s\S]*EADDRINUSE/,
  );
  t.notOk(existsSync(join(h, 'supervisor.pid')));
});

t.test('run: flags override the environment, which overrides supervisor.toml', async (t) => {
  const h = await home(t);
  const busy = await busyPort(t);
  await writeFile(join(h, 'supervisor.toml'), `[supervisor]\nport = ${busy}\n`);
  const url = async (p: GcProcess): Promise<string> => {
    await p.waitForStderr(/listening on (\S+)|gc supervisor run: .*\n/, 30_000);
    const m = /listening on (\S+)/.exec(p.stderr);
    if (!m) throw new Error(p.stderr);
    return m[1]!;
  };
  const fromEnv = new GcProcess(['supervisor', 'run'], { env: isolatedEnv(h, { GC_PORT: '0' }) });
  t.not(await url(fromEnv), `http://127.0.0.1:${busy}`, 'GC_PORT=0 beats the file');
  const stopped = await fromEnv.stop();
  t.equal(stopped.code, 0, 'SIGTERM stops it with status 0');
  const fromFlag = new GcProcess(['supervisor', 'run', '--port', '0'], {
    env: isolatedEnv(h, { GC_PORT: String(busy) }),
  });
  t.not(await url(fromFlag), `http://127.0.0.1:${busy}`, '--port 0 beats GC_PORT');
  t.teardown(() => fromFlag.stop());
  const onlyFile = await runGc(['supervisor', 'run'], { env: isolatedEnv(h) });
  t.equal(onlyFile.code, 1, 'the file alone names the busy port');
  t.match(onlyFile.stderr, /^gc supervisor run: .*EADDRINUSE/m);
});

t.test('run: SIGINT is a graceful stop too; bad flags fail before starting', async (t) => {
  const h = await home(t);
  const p = new GcProcess(['supervisor', 'run', '--port', '0'], { env: isolatedEnv(h) });
  await p.waitForStderr(/listening on/, 30_000);
  t.ok(existsSync(join(h, 'supervisor.json')));
  const sigint = new Promise<void>((r) => setTimeout(r, 10));
  await sigint;
  const result = await (async () => {
    process.kill(Number(JSON.parse(await readFile(join(h, 'supervisor.json'), 'utf8')).pid), 'SIGINT');
    return p.done;
  })();
  t.equal(result.code, 0);
  t.match(result.stderr, /SIGINT, stopping\n[\s\S]*stopped\n$/);
  t.notOk(existsSync(join(h, 'supervisor.json')), 'supervisor.json removed');
  for (const [args, message] of [
    [['--tick', 'soon'], /^gc supervisor run: invalid --tick "soon": /],
    [['--heartbeat', '1 s'], /^gc supervisor run: invalid --heartbeat "1 s": /],
    [['--port', '70000'], /^gc supervisor run: /],
  ] as const) {
    const r = await runGc(['supervisor', 'run', ...args], { env: isolatedEnv(h) });
    t.same([r.code, r.stdout], [1, ''], args.join(' '));
    t.match(r.stderr, message);
  }
});
