/**
 * The config reader's output is what schemas/cityToml.ts says it is: every upstream example city (with its
 * packs composed) and a city.toml with wrongly typed keys read into values the schema accepts, and the
 * schema refuses what the reader must never produce.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Value } from 'typebox/value';
import { cityConfigOf } from '../../actors/config/cityConfig.ts';
import { effectiveConfig } from '../../actors/config/effectiveConfig.ts';
import { CityConfigSchema } from '../../schemas/cityToml.ts';

const EXAMPLES = join(import.meta.dirname, '..', 'fixtures', 'upstream', 'gascity', 'examples');
const errorsOf = (value: unknown) => [...Value.Errors(CityConfigSchema, value)].map((e) => e.message);

// lifecycle's and hyperscale's agents are rig-scoped: without a rig they have none.
for (const name of ['gastown', 'swarm', 'lifecycle', 'hyperscale']) {
  t.test(`upstream's ${name} reads into the city.toml schema`, async (t) => {
    const { city } = await effectiveConfig({ path: join(EXAMPLES, name), name });
    if (name === 'gastown' || name === 'swarm') t.ok(city.agents.length > 0, 'it has agents');
    t.same(errorsOf(city), []);
  });
}

t.test('wrongly typed keys are dropped, never passed on', async (t) => {
  const city = cityConfigOf({
    workspace: { provider: 7, start_command: '' },
    agent: [{ name: 'a', max_active_sessions: '3', depends_on: ['b', 4], suspended: 'yes' }],
    named_session: [{ template: 'a', mode: 'sometimes' }],
    session: { startup_timeout: '60s', max_wake_attempts: 3n, nested: { x: 1 } },
  });
  t.same(errorsOf(city), []);
  t.same(city.agents, [{ name: 'a', depends_on: ['b'] }]);
  t.same(city.namedSessions, [{ name: 'a', template: 'a', mode: 'on_demand' }]);
  t.same(city.session, { startup_timeout: '60s', max_wake_attempts: 3 });
});

t.test('the schema refuses what the reader must not produce', async (t) => {
  t.not(errorsOf({ agents: [{ name: 'a', max_active_sessions: 1.5 }] }).length, 0, 'a fractional bound');
  t.not(
    errorsOf({ agents: [], namedSessions: [{ name: 'n', template: 't', mode: 'x' }] }).length,
    0,
    'a mode',
  );
  t.not(errorsOf({}).length, 0, 'no agents list');
});

t.test('a city.toml on disk reads the same through the file reader', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'city-toml-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'city.toml'),
    '[workspace]\nname = "c"\n\n[[agent]]\nname = "w"\nmax_active_sessions = 2\n',
  );
  const { city } = await effectiveConfig({ path: dir, name: 'c' });
  t.same(errorsOf(city), []);
  t.match(city.agents, [{ name: 'w', max_active_sessions: 2 }]);
});
