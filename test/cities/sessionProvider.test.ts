/**
 * `[session] provider`: a city.toml written for upstream with `k8s` (a runtime this supervisor does not
 * have) is refused at create with a 422 naming `city.toml:session.provider`, the same error
 * /config/validate reports; `subprocess` is accepted and the city's sessions run on it.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { effectiveConfig } from '../../actors/config/effectiveConfig.ts';
import { thresholdsFrom } from '../../actors/sessions/startSessionService.ts';
import { sessionRuntimeOf } from '../../machines/config/sessionProvider.ts';
import { startTestSupervisor, waitForTerminal } from '../helpers/supervisor.ts';

const HYPERSCALE = join(
  import.meta.dirname,
  '..',
  'fixtures',
  'upstream',
  'gascity',
  'examples',
  'hyperscale',
);

t.test('k8s is a 422 at create and the same error in validate; subprocess creates', async (t) => {
  const s = await startTestSupervisor(t);
  const dir = join(s.home, 'hyperscale');
  cpSync(HYPERSCALE, dir, { recursive: true });
  const res = await s.call('POST', '/v0/city', { dir, start_command: 'true' });
  t.equal(res.status, 422);
  const message =
    'session provider "k8s" is not available in this supervisor (supported: tmux, subprocess, acp, exec:<script>)';
  t.equal(res.body.detail, `invalid_config: city.toml: session.provider: ${message}`);
  t.match(res.body.errors, [{ location: 'city.toml:session.provider', message, value: 'k8s' }]);
  t.notOk(existsSync(join(dir, '.gc')), 'nothing scaffolded');
  const validate = await effectiveConfig({ path: dir });
  t.match(
    validate.problems.filter((p) => p.severity === 'error'),
    [{ file: 'city.toml', field: 'session.provider', message }],
  );

  const text = readFileSync(join(dir, 'city.toml'), 'utf8').replace(
    'provider = "k8s"',
    'provider = "subprocess"',
  );
  writeFileSync(join(dir, 'city.toml'), text);
  const ok = await s.call('POST', '/v0/city', { dir, start_command: 'true' });
  t.equal(ok.status, 202, JSON.stringify(ok.body));
  const done = await waitForTerminal(s.log, ok.body.request_id as string, 20_000);
  t.equal(done.type, 'request.result.city.create', JSON.stringify(done));
});

t.test('the runtime a [session] table asks for, and the keys that are not thresholds', async (t) => {
  t.equal(sessionRuntimeOf({ provider: 'subprocess' }), 'subprocess');
  t.equal(sessionRuntimeOf({ provider: 'tmux' }), 'tmux');
  t.equal(sessionRuntimeOf({ provider: 'weird' }), undefined, 'unknown: the supervisor default');
  t.equal(sessionRuntimeOf({}), undefined);
  t.same(thresholdsFrom({ provider: 'subprocess', setup_timeout: '10s', startup_timeout: '5s' }), {
    startupTimeoutMs: 5000,
  });
  t.throws(() => thresholdsFrom({ nonsense: 1 }), /city.toml \[session\] nonsense/);
});
