/**
 * Agent edits through the one writer when packs define agents: editing an agent city.toml defines rewrites
 * its `[[agent]]` (as before); editing one a pack defines writes an agent patch instead (so the edit
 * survives a pack update, upstream's rule); removing a pack's agent is refused and changes nothing.
 */
import t from 'tap';
import { AgentService } from '../../actors/agents/agentService.ts';
import type { BeadStore } from '../../actors/beads/beadStore.ts';
import type { CityConfig } from '../../actors/config/cityConfig.ts';
import { effectiveConfig } from '../../actors/config/effectiveConfig.ts';
import type { SessionService } from '../../actors/sessions/sessionService.ts';
import { recordingLogger } from '../helpers/recordingLogger.ts';
import { configHarness } from './helpers.ts';

const PACK = '[pack]\nname = "base"\nschema = 1\n\n[[agent]]\nname = "scout"\nprovider = "mock"\n';
const CITY =
  '[workspace]\nname = "demo"\nincludes = ["packs/base"]\n\n[[agent]]\nname = "mayor"\nprovider = "mock"\n';

t.test('an edit of a pack agent becomes a patch; its removal is refused', async (t) => {
  const h = await configHarness(t, { toml: CITY, files: { 'packs/base/pack.toml': PACK } });
  let config: CityConfig = (await effectiveConfig({ path: h.dir })).city;
  const sessions = {
    get config() {
      return config;
    },
    setConfig: (c: CityConfig) => void (config = c),
    book: { openSessions: () => [] },
  } as unknown as SessionService;
  const agents = new AgentService({
    city: h.name,
    path: h.dir,
    store: {} as BeadStore,
    sessions,
    log: h.log,
    logger: recordingLogger().logger,
  });
  await agents.stopService(); // no reconcile passes: this test is about the file

  await agents.update('scout', { suspended: true }, 'api');
  t.match(await h.toml(), /\[\[patches\.agent\]\]\nname = "scout"\nsuspended = true/);
  t.notMatch(await h.toml(), /\[\[agent\]\]\nname = "scout"/, 'no [[agent]] copied out of the pack');
  t.equal(config.agents.find((a) => a.name === 'scout')?.suspended, true, 'the sessions see it suspended');
  await agents.update('scout', { suspended: false }, 'api');
  t.match(await h.toml(), /name = "scout"\nsuspended = false/, 'the same patch, merged');

  await agents.update('mayor', { suspended: true }, 'api');
  t.match(
    await h.toml(),
    /\[\[agent\]\]\nname = "mayor"\nprovider = "mock"\nsuspended = true/,
    'an inline agent is edited in place',
  );

  const before = await h.toml();
  const events = (await h.configEvents()).length;
  await t.rejects(agents.remove('scout', 'api'), { name: 'ConflictError', message: /defined by a pack/ });
  t.equal(await h.toml(), before);
  t.equal((await h.configEvents()).length, events);
  t.same(
    (await h.configEvents()).map((e) => [e.type, e.subject]),
    [
      ['agent.config_changed', 'scout'],
      ['agent.config_changed', 'scout'],
      ['agent.config_changed', 'mayor'],
    ],
  );
});
