/**
 * An agent's lifecycle keys reach its sessions as upstream applies them (real supervisor, real tmux):
 * `env` (with `$VAR` from the supervisor's environment), `session_setup` then `session_setup_script` once
 * the session is up (with `{{.Session}}` and `GC_SESSION`, and `GC_TMUX_SOCKET` for tmux scripts),
 * `session_live` after it and again when it is edited (no restart), `idle_timeout` over the city's, and
 * `wake_mode = "fresh"` (a new conversation on every wake).
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { until } from '../helpers/until.ts';
import { workCity } from '../work/helpers.ts';

t.setTimeout(180_000);

const lines = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n') : [];

t.test('an agent’s env, setup, live, idle_timeout and wake_mode are applied', async (t) => {
  const city = await workCity(t, { supervisorEnv: { GC_TEST_MARK: 'from-the-supervisor' } });
  const log = join(city.dir, 'up.log');
  mkdirSync(join(city.dir, 'scripts'), { recursive: true });
  writeFileSync(
    join(city.dir, 'scripts', 'setup.sh'),
    `#!/bin/sh\necho "script:$GC_SESSION:\${GC_TMUX_SOCKET:+socket}" >> '${log}'\n`,
  );
  chmodSync(join(city.dir, 'scripts', 'setup.sh'), 0o755);
  const agent = (live: string) =>
    [
      '',
      '[[agent]]',
      'name = "worker"',
      'provider = "mock"',
      'min_active_sessions = 1',
      'max_active_sessions = 1',
      'wake_mode = "fresh"',
      `session_setup = ["echo \\"setup:{{.Session}}:$GC_SESSION:{{.Agent}}:$MARK\\" >> '${log}'"]`,
      'session_setup_script = "scripts/setup.sh"',
      `session_live = ["echo ${live}:{{.Session}} >> '${log}'"]`,
      '[agent.env]',
      'MARK = "mark=$GC_TEST_MARK"',
      '',
      '[[agent]]',
      'name = "napper"',
      'provider = "mock"',
      'min_active_sessions = 1',
      'max_active_sessions = 1',
      'idle_timeout = "2s"',
      '',
    ].join('\n');
  const toml = join(city.dir, 'city.toml');
  const original = readFileSync(toml, 'utf8');
  appendFileSync(toml, agent('live1'));
  // A hand-edited city.toml is read at start: restart the supervisor (the city comes back).
  await city.sup.stop('SIGTERM');
  await city.sup.start();

  const session = async (template: string) => {
    const r = await city.sup.call('GET', `/v0/city/${city.name}/sessions`);
    if (r.status !== 200) return undefined;
    const items = (
      r.body as { items: { id: string; template: string; state: string; session_name?: string }[] }
    ).items;
    return items.find((s) => s.template === template && s.state === 'active');
  };
  const worker = await until('the worker session to be active', () => session('worker'), 60_000, 200);
  await until(
    'the setup and live commands to run',
    () => Promise.resolve(lines(log).length >= 3 || undefined),
    30_000,
    100,
  );
  const name = lines(log)[0]!.split(':')[1]!;
  t.ok(name, 'the session name filled {{.Session}}');
  t.same(
    lines(log),
    [`setup:${name}:${name}:worker:mark=from-the-supervisor`, `script:${name}:socket`, `live1:${name}`],
    'session_setup (with the agent env), then its script (GC_SESSION, GC_TMUX_SOCKET), then session_live',
  );

  await t.test('session_live edited: run again in the running session, no restart', async (t) => {
    writeFileSync(toml, original + agent('live2'));
    await until(
      'the edited session_live to run',
      () => Promise.resolve(lines(log).includes(`live2:${name}`) || undefined),
      30_000,
      200,
    );
    t.equal(lines(log).filter((l) => l.startsWith('setup:')).length, 1, 'no restart: setup ran once');
    t.equal((await session('worker'))?.id, worker.id, 'the same session');
  });

  await t.test('idle_timeout: the agent’s own limit stops its idle session', async (t) => {
    const killed = await until(
      'session.idle_killed for the napper',
      async () => {
        const r = await city.sup.call('GET', `/v0/city/${city.name}/events?type=session.idle_killed`);
        const items = (r.body as { items: { subject?: string; message?: string }[] }).items;
        return items.length > 0 ? items : undefined;
      },
      30_000,
      250,
    );
    t.same(
      killed.map((e) => e.message),
      killed.map(() => 'napper'),
      'only the napper: the worker has no limit of its own and the city none',
    );
    t.equal((await session('worker'))?.id, worker.id, 'the worker runs on');
  });

  await t.test('wake_mode = "fresh": a wake begins a new conversation', async (t) => {
    // The session bead's metadata holds its conversation id (upstream's `session_key`).
    const keyOf = async () => {
      const shown = await city.bd(['show', worker.id, '--json']);
      return (JSON.parse(shown.stdout) as { metadata?: Record<string, string> }[])[0]?.metadata?.session_key;
    };
    const before = await keyOf();
    t.ok(before, 'a conversation id');
    const killed = await city.sup.call('POST', `/v0/city/${city.name}/session/${worker.id}/kill`);
    t.equal(killed.status, 200, JSON.stringify(killed.body));
    const after = await until(
      'the worker to come back under a new conversation id',
      async () => {
        const key = await keyOf();
        return key && key !== before && (await session('worker'))?.id === worker.id ? key : undefined;
      },
      60_000,
      250,
    );
    t.not(after, before);
    await until(
      'setup to run on the new start',
      () => Promise.resolve(lines(log).filter((l) => l.startsWith('setup:')).length === 2 || undefined),
      30_000,
      200,
    );
  });
});
