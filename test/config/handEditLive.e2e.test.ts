/**
 * A hand edit of a running city's city.toml (real supervisor, real files): what the city reads while it
 * runs takes effect without a restart (the `[session]` thresholds, `[daemon] shutdown_timeout`), and an
 * edit of a part read only at the city's start (`[session] provider`, `[session.acp]`, `[daemon]
 * patrol_interval`, `[[service]]`) is a /config/validate warning naming the key until the city restarts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { sessionServiceFactory, type SessionService } from '../../actors/sessions/index.ts';
import { beadStoreService } from '../../actors/beads/index.ts';
import { linkedConfigService } from '../../actors/supervisor/linkedConfigService.ts';
import { eventually, fakeHost, startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

t.test('a hand edit reaches the running city, or validate names the key that needs a restart', async (t) => {
  const first = await startTestSupervisor(t, { tickMs: 200 });
  await first.close();
  const s = await startTestSupervisor(t, {
    tickMs: 200,
    root: first.root,
    options: {
      services: [
        beadStoreService,
        sessionServiceFactory({ runtime: 'subprocess' }),
        linkedConfigService({ pollMs: 100 }),
      ],
      host: fakeHost(first.home, { bins: ['sh', 'node'] }),
    },
  });
  const dir = join(s.home, 'live');
  const created = await s.call('POST', '/v0/city', { dir, provider: 'mock' });
  t.equal((await waitForTerminal(s.log, created.body.request_id, 20_000)).type, 'request.result.city.create');
  const base = '/v0/city/live';
  await eventually(async () => (await s.call('GET', `${base}/config/validate`)).status === 200, 20_000);
  const sessions = () =>
    s.running.supervisor.live.get('live')?.services.sessions as SessionService | undefined;
  await eventually(() => sessions() !== undefined, 20_000);
  const validate = async () =>
    (await s.call('GET', `${base}/config/validate`)).body as { valid: boolean; warnings: string[] };
  const restartWarnings = async () => (await validate()).warnings.filter((w) => w.includes('restarts'));
  t.same(await restartWarnings(), [], 'nothing to restart for before an edit');
  t.equal(sessions()!.thresholds.shutdownTimeoutMs, 5_000, 'the default shutdown timeout');

  const toml = join(dir, 'city.toml');
  const original = readFileSync(toml, 'utf8');
  const thresholds = '\nstartup_timeout = "90s"\ntick = "300ms"\n';
  writeFileSync(toml, `${original}\n[session]${thresholds}\n[daemon]\nshutdown_timeout = "7s"\n`);
  await eventually(() => sessions()!.thresholds.shutdownTimeoutMs === 7_000, 10_000);
  t.match(
    sessions()!.thresholds,
    { startupTimeoutMs: 90_000, tickMs: 300, shutdownTimeoutMs: 7_000 },
    'the [session] and [daemon] thresholds are the edited ones, without a restart',
  );
  t.same(await restartWarnings(), [], 'thresholds need no restart');

  writeFileSync(
    toml,
    `${original}\n[session]\nprovider = "tmux"${thresholds}\n[session.acp]\nhandshake_timeout = "9s"\n` +
      '\n[daemon]\nshutdown_timeout = "7s"\npatrol_interval = "10s"\n',
  );
  const warnings = await restartWarnings();
  t.same(
    warnings.map((w) => w.split(': ').slice(0, 2).join(': ')),
    ['city.toml: session.provider', 'city.toml: session.acp', 'city.toml: daemon.patrol_interval'],
    'each start-only key edited is named',
  );
  t.match(warnings[0], /takes it when the city restarts/);
  t.equal((await validate()).valid, true, 'a warning, not an error');
});
