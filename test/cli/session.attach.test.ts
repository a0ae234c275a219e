import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import { GC_BIN, isolatedEnv, runGc } from './helpers/gc.ts';
import { SessionStub } from './helpers/sessionStub.ts';

/**
 * `gc session attach`: it resolves the session over the API and runs `tmux -L <socket> attach-session -t
 * =<session_name>` on the inherited terminal, the socket being `tmuxSocketFor(city, GC_HOME)` as the
 * supervisor's tmux runtime names it. Checked with a fake tmux that records its argv, and against a real tmux
 * server on that private socket under a pseudo-terminal.
 */

t.setTimeout(5 * 60_000);

interface Setup {
  stub: SessionStub;
  env: NodeJS.ProcessEnv;
  home: string;
  /** A directory holding a fake `tmux` that writes its argv, one per line, to `argvFile`. */
  fakeBin: string;
  argvFile: string;
}

async function setup(t: Test): Promise<Setup> {
  const stub = await new SessionStub('town').listen();
  t.teardown(() => stub.close());
  const home = await mkdtemp(join(tmpdir(), 'gc-cli-attach-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  const fakeBin = join(home, 'fake-bin');
  await mkdir(fakeBin);
  const argvFile = join(home, 'tmux-argv');
  await writeFile(
    join(fakeBin, 'tmux'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}'\nexit "\${FAKE_TMUX_EXIT:-0}"\n`,
  );
  await chmod(join(fakeBin, 'tmux'), 0o755);
  const env = isolatedEnv(home, { GC_API: stub.url, GC_CITY: 'town' });
  delete env.TMUX;
  return { stub, env, home, fakeBin, argvFile };
}

const withPath = (env: NodeJS.ProcessEnv, first: string): NodeJS.ProcessEnv => ({
  ...env,
  PATH: `${first}${delimiter}${env.PATH ?? ''}`,
});

t.test('attach runs tmux -L <socket of city and home> attach-session -t =<session_name>', async (t) => {
  const { stub, env, home, fakeBin, argvFile } = await setup(t);
  stub.add({ alias: 'boss', session_name: 'gc-town-mayor' });
  const r = await runGc(['session', 'attach', 'boss'], { env: withPath(env, fakeBin) });
  t.same([r.code, r.stdout, r.stderr], [0, '', '']);
  t.same((await readFile(argvFile, 'utf8')).split('\n').slice(0, -1), [
    '-L',
    tmuxSocketFor('town', home),
    'attach-session',
    '-t',
    '=gc-town-mayor',
  ]);
  t.match(stub.received.at(-1), { method: 'GET', path: '/v0/city/town/session/boss' });

  const other = join(home, 'other-home');
  await runGc(['session', 'attach', 'boss', '--home', other], { env: withPath(env, fakeBin) });
  t.equal((await readFile(argvFile, 'utf8')).split('\n')[1], tmuxSocketFor('town', other), '--home names it');

  const failing = await runGc(['session', 'attach', 'gc-1'], {
    env: { ...withPath(env, fakeBin), FAKE_TMUX_EXIT: '3' },
  });
  t.equal(failing.code, 3, "tmux's exit status is gc's");
});

t.test('attach refuses clearly: no tmux on PATH, a session not running, an unknown session', async (t) => {
  const { stub, env, home } = await setup(t);
  stub.add();
  stub.add({ state: 'suspended', running: false });
  const empty = join(home, 'empty-bin');
  await mkdir(empty);
  const noTmux = await runGc(['session', 'attach', 'gc-1'], { env: { ...env, PATH: empty } });
  t.same(
    [noTmux.code, noTmux.stdout, noTmux.stderr],
    [
      1,
      '',
      'gc session attach: tmux is not installed (not found on PATH); attaching to a session needs it (e.g. apt-get install tmux)\n',
    ],
  );
  const asleep = await runGc(['session', 'attach', 'gc-2'], { env: { ...env, PATH: empty } });
  t.same(
    [asleep.code, asleep.stdout, asleep.stderr],
    [
      1,
      '',
      'gc session attach: session gc-2 is not running (state suspended); start it with "gc session wake gc-2"\n',
    ],
  );
  const ghost = await runGc(['session', 'attach', 'ghost'], { env });
  t.same(
    [ghost.code, ghost.stdout, ghost.stderr],
    [1, '', 'gc session attach: not_found: session not found: ghost\n'],
  );
});

t.test('attach puts this terminal on the session of the city’s private tmux server', async (t) => {
  const { stub, env, home } = await setup(t);
  const tmuxEnv = { ...env, TERM: 'xterm-256color' };
  const socket = tmuxSocketFor('town', home);
  const tmux = (...args: string[]): { status: number | null; stdout: string; stderr: string } => {
    const r = spawnSync('tmux', ['-L', socket, ...args], { env: tmuxEnv, encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const started = tmux('new-session', '-d', '-s', 'gc-town-real', 'sleep', '60');
  t.equal(started.status, 0, `tmux new-session: ${started.stderr}`);
  t.teardown(() => void tmux('kill-server'));
  stub.add({ session_name: 'gc-town-real' });

  // `script` gives gc (and the tmux client it runs) a pseudo-terminal.
  const cmd = `${process.execPath} ${GC_BIN} session attach gc-1`;
  const client = spawn('script', ['-qfec', cmd, '/dev/null'], {
    env: tmuxEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  client.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
  const exited = new Promise<number | null>((resolve) => client.once('close', resolve));

  let clients = '';
  for (const until = Date.now() + 15_000; Date.now() < until; await sleep(100)) {
    clients = tmux('list-clients', '-F', '#{session_name}').stdout;
    if (clients.includes('gc-town-real')) break;
  }
  t.equal(clients.trim(), 'gc-town-real', `one client attached to the session; output: ${output}`);
  tmux('kill-session', '-t', '=gc-town-real');
  const code = await Promise.race([exited, sleep(15_000).then(() => 'hung')]);
  if (code === 'hung') client.kill('SIGKILL');
  t.equal(code, 0, 'gc ends with the tmux client when the session goes');
  t.notMatch(output, /gc session attach:/, 'no diagnostics');
});
