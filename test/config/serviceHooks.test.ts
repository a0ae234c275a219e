/**
 * What the config service does to the rest of its city: a change (a write or a valid hand edit) hands the
 * new config to the sessions and pokes the agents' reconciler; an invalid hand edit does neither; a rig's
 * restart stops the sessions of its agents and reports each one it stopped or could not stop; a rig's
 * running count is its agents with an active session.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { CityConfig } from '../../actors/config/cityConfig.ts';
import { ConfigService, type ConfigSessions } from '../../actors/config/configService.ts';
import { recordingLogger } from '../helpers/recordingLogger.ts';
import { configHarness } from './helpers.ts';

function fakeSessions(failing: Set<string> = new Set()) {
  const configs: CityConfig[] = [];
  const killed: string[] = [];
  const sessions: ConfigSessions = {
    setConfig: (c) => void configs.push(c),
    book: {
      openSessions: () => [
        { id: 's1', template: 'app/worker', state: 'active', alias: 'app/worker-1', sessionName: 's-1' },
        { id: 's2', template: 'app/worker', state: 'active', alias: 'app/worker-2', sessionName: 's-2' },
        { id: 's3', template: 'mayor', state: 'active', alias: '', sessionName: 's-3' },
      ],
    },
    kill: async (id) => {
      if (failing.has(id)) throw new Error('runtime gone');
      killed.push(id);
      return id;
    },
  };
  return { sessions, configs, killed };
}

t.test('changes reach the sessions and the agents; an invalid hand edit does not', async (t) => {
  const h = await configHarness(t);
  await h.service.stop();
  const fake = fakeSessions();
  let pokes = 0;
  const service = new ConfigService({
    city: h.name,
    path: h.dir,
    log: h.log,
    logger: recordingLogger().logger,
    sessions: fake.sessions,
    poke: () => void pokes++,
    pollMs: 0,
  });
  await service.start();
  t.teardown(() => service.stop());
  await service.createProvider({ name: 'slow', command: 'sleep' }, 'api');
  t.equal(fake.configs.length, 1);
  t.equal(fake.configs[0]!.providers?.slow?.command, 'sleep', 'the sessions can run the new provider');
  t.equal(pokes, 1);

  appendFileSync(join(h.dir, 'city.toml'), '\n[[agent]]\nname = "scout"\nprovider = "slow"\n');
  await service.config();
  t.equal(fake.configs.length, 2, 'a hand edit, picked up by the next read');
  t.ok(fake.configs[1]!.agents.some((a) => a.name === 'scout'));
  t.equal(pokes, 2);

  writeFileSync(
    join(h.dir, 'city.toml'),
    '[workspace]\nname = "demo"\n\n[[agent]]\nname = "x"\nprovider = "ghost"\n',
  );
  await service.config();
  t.equal(fake.configs.length, 2, 'an edit with errors is recorded but not used');
  t.equal(pokes, 2);
  t.match((await h.configEvents()).at(-1)!.payload, { valid: false, errors: [/unknown provider "ghost"/] });
});

t.test("a rig's restart stops its agents' sessions and says which it could not", async (t) => {
  const h = await configHarness(t);
  await h.service.stop();
  const fake = fakeSessions(new Set(['s2']));
  const service = new ConfigService({
    city: h.name,
    path: h.dir,
    log: h.log,
    logger: recordingLogger().logger,
    sessions: fake.sessions,
    pollMs: 0,
  });
  await service.start();
  t.teardown(() => service.stop());
  t.same(await service.rigAction('app', 'restart', 'api'), {
    action: 'restart',
    rig: 'app',
    status: 'partial',
    killed: ['app/worker-1'],
    failed: ['app/worker-2'],
  });
  t.same(fake.killed, ['s1'], "the mayor's session is not the rig's");
  t.equal((await service.rig('app', {})).running_count, 1, 'one agent of the rig has an active session');
});
