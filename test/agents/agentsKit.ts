/**
 * Set-up shared by the agent tests that run on a real supervisor with real tmux and the mock agent: the
 * services a city needs for agents, a supervisor that can be started again on the same root (to pick up a
 * hand-edited city.toml), and a city created through the API.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Test } from 'tap';
import { agentServiceFactory } from '../../actors/agents/startAgentService.ts';
import { beadStoreService } from '../../actors/beads/index.ts';
import { sessionServiceFactory } from '../../actors/sessions/startSessionService.ts';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import {
  fakeHost,
  startTestSupervisor,
  waitForTerminal,
  type TestSupervisor,
} from '../helpers/supervisor.ts';

/**
 * A `start` that runs a supervisor with the bead, session (tmux) and agent services on one root, each call
 * a fresh process-equivalent on the same home. City `city`'s tmux server is killed when `t` ends.
 */
export async function agentSupervisor(t: Test, city: string): Promise<() => Promise<TestSupervisor>> {
  const first = await startTestSupervisor(t, { tickMs: 200 });
  const services = [
    beadStoreService,
    sessionServiceFactory({
      runtime: 'tmux',
      thresholds: { tickMs: 150 },
      env: { GC_MOCK_LOG_DIR: join(first.root, 'agent-logs') },
    }),
    agentServiceFactory,
  ];
  await first.close();
  let last: TestSupervisor | undefined;
  return async () => {
    const s = await startTestSupervisor(t, {
      tickMs: 200,
      root: first.root,
      options: { services, host: fakeHost(first.home, { bins: ['sh', 'node'] }) },
    });
    if (!last) {
      t.teardown(() => {
        try {
          execFileSync('tmux', ['-L', tmuxSocketFor(city, s.gcHome), 'kill-server'], { stdio: 'ignore' });
        } catch {
          // no server left
        }
      });
    }
    last = s;
    return s;
  };
}

/** Creates city `city` (provider mock) through the API and waits for its result; answers its directory. */
export async function createMockCity(t: Test, s: TestSupervisor, city: string): Promise<string> {
  const dir = join(s.home, city);
  const created = await s.call('POST', '/v0/city', { dir, provider: 'mock' });
  t.equal((await waitForTerminal(s.log, created.body.request_id, 20_000)).type, 'request.result.city.create');
  return dir;
}
