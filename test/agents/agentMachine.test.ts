/**
 * The agent machine, as a table: from every agent state, the event `agentEventBetween` names for every
 * target (each other state, the same state, `gone`) is a legal transition that lands on that target with
 * the event's facts as the context; `gone` is final and nothing moves it.
 */
import t from 'tap';
import { transition } from 'xstate';
import {
  AGENT_STATES,
  agentEventBetween,
  agentMachine,
  type AgentFacts,
  type AgentState,
} from '../../machines/agents/agent.machine.ts';

const before: AgentFacts = {
  running: true,
  pool: 'worker',
  rig: undefined,
  provider: 'mock',
  active_bead: 'gc-1',
  session: 's-worker-1',
};
const after: AgentFacts = { ...before, running: false, active_bead: undefined, session: undefined };

const at = (state: AgentState) =>
  agentMachine.resolveState({ value: state, context: { city: 'yard', name: 'worker-1', ...before } });

t.test('every pair of states is a legal transition with the derived event', (t) => {
  for (const from of AGENT_STATES) {
    for (const to of [...AGENT_STATES, 'gone'] as const) {
      const type = agentEventBetween(from, to);
      const event = type === 'REMOVE' ? { type } : { type, facts: after };
      const [next] = transition(agentMachine, at(from), event);
      t.equal(next.value, to, `${from} --${type}--> ${to}`);
      t.equal(next.status, to === 'gone' ? 'done' : 'active');
      if (to === 'gone') continue;
      t.match(next.context, { city: 'yard', name: 'worker-1', running: false, pool: 'worker' });
      t.equal(next.context.active_bead, undefined, 'the facts replace the previous ones');
    }
  }
  t.end();
});

t.test('the event names the state moved into, UPDATE when it stays, REMOVE when it goes', (t) => {
  t.equal(agentEventBetween('stopped', 'idle'), 'IDLE');
  t.equal(agentEventBetween('idle', 'working'), 'WORK');
  t.equal(agentEventBetween('working', 'waiting'), 'WAIT');
  t.equal(agentEventBetween('idle', 'suspended'), 'SUSPEND');
  t.equal(agentEventBetween('idle', 'quarantined'), 'QUARANTINE');
  t.equal(agentEventBetween('idle', 'stopped'), 'STOP');
  t.equal(agentEventBetween('idle', 'idle'), 'UPDATE');
  t.equal(agentEventBetween('suspended', 'gone'), 'REMOVE');
  const types = new Set(AGENT_STATES.map((s) => agentEventBetween('idle', s)));
  t.equal(types.size, AGENT_STATES.length, 'one event per state');
  t.end();
});

t.test('gone is final', (t) => {
  const [gone] = transition(agentMachine, at('idle'), { type: 'REMOVE' });
  const [still] = transition(agentMachine, gone, { type: 'IDLE', facts: after });
  t.equal(still.value, 'gone');
  t.equal(still.status, 'done');
  t.end();
});
