import t from 'tap';
import { statusJson, statusText, type StatusInputs } from '../../cli/status/cityStatus.ts';
import type { AgentResponse } from '../../schemas/agents.ts';
import type { SessionResponse } from '../../schemas/sessions.ts';

/** `gc status`'s fold of the API's answers: pools, suspended agents, rigs, session counts. */

const agent = (name: string, running: boolean, extra: Partial<AgentResponse> = {}): AgentResponse =>
  ({ name, running, suspended: false, state: running ? 'idle' : 'stopped', ...extra }) as AgentResponse;
const session = (state: string): SessionResponse => ({ state }) as SessionResponse;

const inputs: StatusInputs = {
  city: { name: 'alpha', path: '/c/alpha', suspended: false },
  config: {
    workspace: { name: 'alpha', suspended: false },
    agents: [
      { name: 'mayor', suspended: false },
      { name: 'polecat', dir: 'web', is_pool: true, suspended: false },
      { name: 'deacon', suspended: true },
    ],
    rigs: [{ name: 'web', path: 'rigs/web', suspended: true }],
  },
  agents: [
    agent('mayor', true),
    agent('web/polecat-1', true, { pool: 'web/polecat' }),
    agent('web/polecat-2', false, { pool: 'web/polecat' }),
    agent('deacon', false, { suspended: true }),
  ],
  sessions: [session('active'), session('active'), session('suspended'), session('closed')],
};

t.test('the JSON object: configured agents, a pool running when an instance is', async (t) => {
  t.same(statusJson(inputs), {
    city_name: 'alpha',
    city_path: '/c/alpha',
    controller: { running: true, mode: 'supervisor' },
    suspended: false,
    agents: [
      { name: 'mayor', qualified_name: 'mayor', scope: 'city', running: true, suspended: false },
      { name: 'polecat', qualified_name: 'web/polecat', scope: 'rig', running: true, suspended: false },
      { name: 'deacon', qualified_name: 'deacon', scope: 'city', running: false, suspended: true },
    ],
    rigs: [{ name: 'web', path: 'rigs/web', suspended: true }],
    summary: { total_agents: 4, running_agents: 2, active_sessions: 2, suspended_sessions: 1 },
  });
});

t.test("the text: upstream's skeleton, a pool as scaled with its instances", async (t) => {
  t.equal(
    statusText(inputs),
    [
      'alpha  /c/alpha',
      'Controller: running (supervisor)',
      'Suspended:  no',
      '',
      'Agents:',
      '  mayor            running',
      '  web/polecat      scaled',
      '    web/polecat-1  running',
      '    web/polecat-2  stopped',
      '  deacon           stopped  (suspended)',
      '2/4 agents running',
      '',
      'Rigs:',
      '  web  rigs/web  (suspended)',
      '',
      'Sessions: 2 active, 1 suspended',
    ].join('\n'),
  );
});
