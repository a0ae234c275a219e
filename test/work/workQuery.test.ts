import { appendFileSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { until } from '../helpers/until.ts';
import { workCity } from './helpers.ts';

/**
 * An agent's own `work_query` (city.toml `[[agent]] work_query = "..."`): `gc hook` (the built binary)
 * runs it as upstream does, a shell command in the agent's directory with the session's environment,
 * and its stdout is the work, in place of the built-in query.
 */

t.setTimeout(120_000);

t.test('gc hook runs the agent’s own work_query', async (t) => {
  const city = await workCity(t);
  const toml = (name: string, query: string) =>
    `\n[[agent]]\nname = "${name}"\nprovider = "mock"\nwork_query = ${JSON.stringify(query)}\n`;
  appendFileSync(
    join(city.dir, 'city.toml'),
    toml('scout', `printf '%s|%s|%s' "$GC_AGENT" "$GC_SESSION_NAME" "$(pwd)"`) +
      toml('idle', 'echo "No ready work found (all issues have blocking dependencies)"') +
      toml('broken', 'echo oops >&2; exit 3') +
      toml('single', `echo '{"id":"x-1","title":"one"}'`) +
      toml('empty', 'echo "[]"'),
  );
  // A hand-edited city.toml is read at start: restart the supervisor (the city comes back).
  await city.sup.stop('SIGTERM');
  await city.sup.start();
  await until(
    'the agents after the restart',
    async () => (await city.sup.call('GET', `/v0/city/${city.name}/agent/scout`)).status === 200,
    30_000,
    100,
  );
  const workDir = join(city.dir, 'scout-work');
  mkdirSync(workDir);

  await t.test('its stdout is the work, run in GC_DIR with the resolved names', async (t) => {
    const session = { GC_TEMPLATE: 'scout', GC_SESSION_NAME: 'scout', GC_AGENT: 'scout', GC_DIR: workDir };
    const hook = await city.gc(['hook'], session);
    t.same([hook.code, hook.stdout, hook.stderr], [0, `scout|scout|${realpathSync(workDir)}`, '']);
    const named = await city.gc(['hook', 'scout'], { GC_SESSION_NAME: '', GC_AGENT: '', GC_DIR: workDir });
    t.same([named.code, named.stdout], [0, `scout|scout|${realpathSync(workDir)}`], 'outside a session');
    const inject = await city.gc(['hook', '--inject'], session);
    t.equal(inject.code, 0);
    t.match(
      inject.stdout,
      /^<system-reminder>\n[^\n]*\n\n<work-items>\nscout\|scout\|[^\n]+\n<\/work-items>\n/,
    );
  });

  await t.test('a lone JSON object is one work item; [] and "No ready work found" are none', async (t) => {
    const single = await city.gc(['hook', 'single']);
    t.equal(single.code, 0, single.stderr);
    t.same(JSON.parse(single.stdout), [{ id: 'x-1', title: 'one' }]);
    const empty = await city.gc(['hook', 'empty']);
    t.same([empty.code, empty.stdout], [1, '[]']);
    const idle = await city.gc(['hook', 'idle']);
    t.same([idle.code, idle.stdout], [1, 'No ready work found (all issues have blocking dependencies)']);
    const quiet = await city.gc(['hook', 'idle', '--inject']);
    t.same([quiet.code, quiet.stdout], [0, '']);
  });

  await t.test('a failing query is one line naming it, exit 1; --inject stays silent', async (t) => {
    const broken = await city.gc(['hook', 'broken']);
    t.same(
      [broken.code, broken.stdout, broken.stderr],
      [1, '', 'gc hook: running work query "echo oops >&2; exit 3": exit status 3\n'],
    );
    const quiet = await city.gc(['hook', 'broken', '--inject']);
    t.same([quiet.code, quiet.stdout, quiet.stderr], [0, '', '']);
  });

  await t.test('the API shows the query only with ?extras=true', async (t) => {
    const plain = await city.sup.call('GET', `/v0/city/${city.name}/agent/idle`);
    t.notOk('work_query' in (plain.body as object));
    const extras = await city.sup.call('GET', `/v0/city/${city.name}/agent/idle?extras=true`);
    t.equal(
      (extras.body as { work_query?: string }).work_query,
      'echo "No ready work found (all issues have blocking dependencies)"',
    );
  });
});
