import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { mockAgentCommand } from '../../actors/sessions/runtime/presets.ts';
import { TmuxProvider } from '../../actors/sessions/runtime/tmuxProvider.ts';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import { runtimeConformance, until } from './conformance.ts';

function tmuxVersion(): string | undefined {
  try {
    return execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

const version = tmuxVersion();
if (!version) {
  // CI installs tmux: there a missing tmux is a failure, elsewhere a visible skip.
  if (process.env.CI)
    t.fail('tmux is not on PATH; CI must install it (.ci/run) so the tmux provider is tested');
  else t.plan(0, 'tmux is not on PATH: the tmux provider is not tested here');
} else {
  t.comment(`testing against ${version}`);
  // A server of its own per test file: sockets never meet another run's or a user's sessions.
  const socket = tmuxSocketFor(`test-${process.pid}`, `/tmp/gc-runtime-test-${Date.now()}`);
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  t.teardown(() => {
    try {
      tmux('kill-server');
    } catch {
      // No server left (every session ended): nothing to kill.
    }
    // A server that ended by itself leaves its socket file behind.
    const dir = join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`);
    rmSync(join(dir, socket), { force: true });
  });

  runtimeConformance(t, {
    provider: async () => new TmuxProvider({ socket, stopGraceMs: 500, pollMs: 25 }),
    realProcesses: true,
  });

  t.test(
    'a restarted supervisor observes its sessions with their identity, and foreign ones without',
    async (t) => {
      // A directory of its own: tap's fixture directory is named after the test, shared by parallel runs.
      const dir = mkdtempSync(join(tmpdir(), 'gc-tmux-adopt-'));
      t.teardown(() => rmSync(dir, { recursive: true, force: true }));
      const first = new TmuxProvider({ socket });
      const identity = { sessionId: 'gc-adopt', instanceToken: 'tok-adopt', city: 'adopt' };
      await first.start('adopt-ours', {
        command: mockAgentCommand('--session-id', 'adopt', '--log-dir', dir),
        workDir: dir,
        identity,
        readyPromptPrefix: '❯',
      });
      await first.close();
      tmux('new-session', '-d', '-s', 'adopt-theirs', 'sleep 1000');
      t.teardown(async () => {
        await first.stop('adopt-ours');
        tmux('kill-session', '-t', '=adopt-theirs');
      });

      const second = new TmuxProvider({ socket });
      const seen = await second.observe('adopt-');
      t.match(
        seen.get('adopt-ours'),
        { running: true, identity },
        'ours, with the identity it was started with',
      );
      t.match(seen.get('adopt-theirs'), { running: true }, 'the foreign session is listed');
      t.equal(seen.get('adopt-theirs')?.identity, undefined, 'without an identity: it is not ours');
      await second.nudge('adopt-ours', 'after restart');
      let screen = '';
      await until(
        async () => (screen = await second.peek('adopt-ours', 40)).includes('echo: after restart'),
        10_000,
        () => `the adopted session answers the second provider; its screen:\n${screen}`,
      );
    },
  );

  t.test(
    'the socket name is private to the city and home, and attach targets the exact session',
    async (t) => {
      t.not(tmuxSocketFor('a', '/h1'), tmuxSocketFor('a', '/h2'), 'another home, another server');
      t.not(tmuxSocketFor('a', '/h1'), tmuxSocketFor('b', '/h1'), 'another city, another server');
      t.match(tmuxSocketFor('my city/../x', '/h'), /^gc-my_city____x-[0-9a-f]{8}$/, 'sanitised');
      const provider = new TmuxProvider({ socket: 'gc-x' });
      t.same(provider.attachCommand('s-1'), ['tmux', '-L', 'gc-x', 'attach-session', '-t', '=s-1']);
    },
  );

  t.test('observe without a server is an empty map, not an error', async (t) => {
    const provider = new TmuxProvider({ socket: `${socket}-never-started` });
    t.same([...(await provider.observe()).keys()], []);
    await provider.stop('nothing');
  });

  t.test('observe on a server left without sessions is an empty map, not an error', async (t) => {
    // The moment between a server's last session ending and the server exiting, held open here.
    const empty = `${socket}-empty`;
    const run = (...args: string[]) => execFileSync('tmux', ['-L', empty, ...args], { encoding: 'utf8' });
    run('new-session', '-d', '-s', 'only', 'sleep 1000');
    t.teardown(() => run('kill-server'));
    run('set-option', '-g', 'exit-empty', 'off');
    run('kill-session', '-t', '=only');
    const provider = new TmuxProvider({ socket: empty });
    t.same([...(await provider.observe()).keys()], []);
  });

  t.test('a session name that prefixes another is never mistaken for it', async (t) => {
    const provider = new TmuxProvider({ socket });
    tmux('new-session', '-d', '-s', 'prefix-long', 'sleep 1000');
    t.teardown(() => tmux('kill-session', '-t', '=prefix-long'));
    await t.rejects(provider.peek('prefix', 5), { name: 'SessionNotFoundError' });
    await provider.stop('prefix');
    t.ok((await provider.observe('prefix-long')).get('prefix-long')?.running, 'the longer one is untouched');
  });
}
