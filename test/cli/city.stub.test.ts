import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { GC_BIN, isolatedEnv, jsonLines, runGc } from './helpers/gc.ts';
import { StubApi } from './helpers/stubApi.ts';

/**
 * `gc city create|unregister` against a stub whose async outcome the test chooses (a real supervisor does
 * not fail a request on demand); the happy paths also run against the real supervisor (cliSuite).
 */

t.setTimeout(5 * 60_000);

async function setup(t: Test): Promise<{ stub: StubApi; env: NodeJS.ProcessEnv; cwd: string }> {
  const stub = await new StubApi().listen();
  t.teardown(() => stub.close());
  const cwd = await mkdtemp(join(tmpdir(), 'gc-cli-city-'));
  t.teardown(() => rm(cwd, { recursive: true, force: true }));
  return { stub, env: isolatedEnv(cwd, { GC_API: stub.url }), cwd };
}

t.test(
  'create without --wait prints the 202 body; the dir is absolute and the mutation header is sent',
  async (t) => {
    const { stub, env, cwd } = await setup(t);
    const r = await runGc(
      ['city', 'create', 'rel/alpha', '--start-command', 'bash -l', '--bootstrap-profile', 'k8s-cell'],
      {
        env,
        cwd,
      },
    );
    t.equal(r.code, 0, r.stderr);
    t.same(jsonLines(r.stdout), [
      { request_id: 'req-000000000000000000000001', event_cursor: '__supervisor__:0' },
    ]);
    t.same(stub.mutations[0], {
      path: '/v0/city',
      header: 'gc',
      body: { dir: join(cwd, 'rel', 'alpha'), start_command: 'bash -l', bootstrap_profile: 'k8s-cell' },
    });
  },
);

t.test('create --wait prints the terminal event, or fails with its error_message', async (t) => {
  const { stub, env } = await setup(t);
  const ok = await runGc(['city', 'create', '/c/alpha', '--provider', 'claude', '--wait'], { env });
  t.equal(ok.code, 0, ok.stderr);
  t.equal(ok.stderr, '', 'no progress when stderr is not a terminal');
  t.match(jsonLines(ok.stdout), [
    { type: 'request.result.city.create', payload: { request_id: /^req-/, name: 'alpha' } },
  ]);

  stub.nextOutcome = { ok: false, code: 'city_init_failed', message: 'pack materialization failed' };
  const bad = await runGc(['city', 'create', '/c/beta', '--provider', 'claude', '--wait'], { env });
  t.equal(bad.code, 1);
  t.match(jsonLines(bad.stdout), [{ type: 'request.failed', payload: { error_code: 'city_init_failed' } }]);
  t.equal(bad.stderr, 'gc city create: city_init_failed: pack materialization failed\n');
});

t.test('create refusals: a Problem, exclusive flags, an unknown bootstrap profile, a time-out', async (t) => {
  const { stub, env } = await setup(t);
  const invalid = await runGc(['city', 'create', '/c/x', '--provider', 'nope'], { env });
  t.same(
    [invalid.code, invalid.stdout, invalid.stderr],
    [1, '', 'gc city create: invalid provider: unknown provider "nope"\n'],
  );
  const both = await runGc(['city', 'create', '/c/x', '--provider', 'a', '--start-command', 'b'], { env });
  t.same(
    [both.code, both.stdout, both.stderr],
    [1, '', 'gc city create: --provider and --start-command are mutually exclusive\n'],
  );
  const profile = await runGc(['city', 'create', '/c/x', '--bootstrap-profile', 'mars'], { env });
  t.same([profile.code, profile.stdout], [1, '']);
  t.match(profile.stderr, /^gc city create: .*mars/);
  const noDir = await runGc(['city', 'create'], { env });
  t.same([noDir.code, noDir.stdout], [1, '']);
  stub.phaseMs = 2000;
  const slow = await runGc(
    ['city', 'create', '/c/slow', '--provider', 'claude', '--wait', '--timeout', '500ms'],
    { env },
  );
  t.same([slow.code, slow.stdout], [1, '']);
  t.match(
    slow.stderr,
    /^gc city create: timed out waiting for req-\S+; it may still finish: gc events --follow --after-cursor \S+\n$/,
  );
});

t.test('on a terminal, --wait shows the phases as the city list reports them', async (t) => {
  const { env } = await setup(t);
  // `script` gives gc a pseudo-terminal (stdout and stderr both land in its output).
  const out = await new Promise<string>((resolve, reject) => {
    const cmd = `${process.execPath} ${GC_BIN} city create /c/tty --provider claude --wait`;
    const p = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    p.stdout.setEncoding('utf8').on('data', (s: string) => (text += s));
    p.once('error', reject);
    p.once('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}: ${text}`))));
  });
  t.match(out, /gc city create: accepted req-\S+; waiting for it to finish/);
  for (const phase of ['loading_config', 'starting_bead_store', 'starting_agents']) {
    t.match(out, new RegExp(`gc city create:   done: ${phase}`), phase);
  }
  t.match(out, /"type":"request\.result\.city\.create"/);
});

t.test('unregister: 202 body, --wait outcome, unknown city', async (t) => {
  const { stub, env } = await setup(t);
  stub.addCity('alpha');
  const plain = await runGc(['city', 'unregister', 'alpha'], { env });
  t.equal(plain.code, 0, plain.stderr);
  t.match(jsonLines(plain.stdout), [{ request_id: /^req-/, event_cursor: /^__supervisor__:/ }]);
  t.match(stub.mutations.at(-1), { path: '/v0/city/alpha/unregister', header: 'gc', body: undefined });
  const waited = await runGc(['city', 'unregister', 'alpha', '--wait'], { env });
  t.equal(waited.code, 0, waited.stderr);
  t.match(jsonLines(waited.stdout), [{ type: 'request.result.city.unregister', payload: { name: 'alpha' } }]);
  stub.nextOutcome = { ok: false, code: 'city_unregister_failed', message: 'controller did not stop' };
  const failed = await runGc(['city', 'unregister', 'alpha', '--wait'], { env });
  t.same(
    [failed.code, failed.stderr],
    [1, 'gc city unregister: city_unregister_failed: controller did not stop\n'],
  );
  const unknown = await runGc(['city', 'unregister', 'ghost', '--wait'], { env });
  t.same(
    [unknown.code, unknown.stdout, unknown.stderr],
    [1, '', 'gc city unregister: not_found: city not registered with supervisor: ghost\n'],
  );
});
