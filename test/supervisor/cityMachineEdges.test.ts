/**
 * The city machine's edges that the lifecycle walk in machines.test.ts leaves out: which states wake the
 * reconciler, what a supervisor restart (RECOVER) clears in each state, what unregistering and registering
 * again reset, the public status text of every state, the replay of each record kind, and the folded types
 * no custom event may forge.
 */
import t from 'tap';
import { initialTransition, transition, type ExecutableActionObject, type SnapshotFrom } from 'xstate';
import {
  CITY_FOLDED_TYPES,
  cityEventsFromRecord,
  cityMachine,
  cityStatus,
  leafState,
  type CityEvent,
} from '../../machines/city.machine.ts';
import type { RecordEvent } from '../../machines/recorded.ts';
import { machineActorId } from '../../actors/inspect/actorInspection.ts';

type CitySnapshot = SnapshotFrom<typeof cityMachine>;

/** The snapshot after `events`, what was recorded, and how many times the reconciler was woken. */
function run(snapshot: CitySnapshot, events: CityEvent[]) {
  const records: RecordEvent[] = [];
  let wakes = 0;
  let s = snapshot;
  for (const e of events) {
    const [next, actions] = transition(cityMachine, s, e);
    for (const a of actions as ExecutableActionObject[]) {
      if (a.type === 'xstate.emit') records.push((a.params as { event: RecordEvent }).event);
      if (a.type === 'wake') wakes++;
    }
    s = next;
  }
  return { snapshot: s, records, wakes, types: records.map((r) => r.draft.type) };
}

const city = { name: 'alpha', path: '/c/alpha' };
const fresh = () => initialTransition(cityMachine, city)[0];
const registered = () => run(fresh(), [{ type: 'REGISTER' }]).snapshot;
const up = () =>
  run(registered(), [{ type: 'START' }, { type: 'STARTED', at: '2026-01-01T00:00:01Z' }]).snapshot;

t.test('the reconciler is woken whenever it has a start, a stop or an unregister to do', async (t) => {
  // A registered city waits for its start: the reconciler must hear of it.
  t.equal(run(fresh(), [{ type: 'REGISTER' }]).wakes, 1, 'registering');
  t.equal(run(up(), [{ type: 'STOP' }]).wakes, 1, 'stopping');
  t.equal(run(up(), [{ type: 'UNREGISTER' }]).wakes, 1, 'unregistering');
  t.equal(run(up(), [{ type: 'RECOVER' }]).wakes, 1, 'a restart puts the city back to be started');
  // Progress reports from the reconciler itself need no wake-up.
  t.equal(run(registered(), [{ type: 'START' }, { type: 'PHASE_COMPLETED', phase: 'p' }]).wakes, 0);
});

t.test('a new city has completed no phases and no controller', async (t) => {
  const s = fresh();
  t.same(s.context, { ...city, suspended: false, phasesCompleted: [], controllerUp: false });
  t.same(registered().context.phasesCompleted, []);
});

t.test('after a restart, every live state goes back to registered with no controller', async (t) => {
  const starting = run(registered(), [{ type: 'START' }, { type: 'PHASE_COMPLETED', phase: 'p' }]).snapshot;
  const failed = run(registered(), [{ type: 'START' }, { type: 'START_FAILED', error: 'e' }]).snapshot;
  const stopping = run(up(), [{ type: 'STOP' }]).snapshot;
  const cases: [string, CitySnapshot][] = [
    ['starting', starting],
    ['running', up()],
    ['stopping', stopping],
    ['failed', failed],
  ];
  for (const [from, s] of cases) {
    const { snapshot, records, wakes } = run(s, [{ type: 'RECOVER' }]);
    t.equal(leafState(snapshot.value), 'registered', `${from} → registered`);
    t.equal(snapshot.context.controllerUp, false, `${from}: no controller survives a restart`);
    t.equal(snapshot.context.startedAt, undefined, `${from}: no start time either`);
    t.same(records, [], `${from}: a restart records nothing`);
    t.equal(wakes, 1, `${from}: the reconciler is told to start it again`);
  }
  // With its controller gone, unregistering the recovered city has no controller.stopped to record.
  const recovered = run(up(), [{ type: 'RECOVER' }]).snapshot;
  t.same(run(recovered, [{ type: 'UNREGISTER' }, { type: 'STOPPED' }]).types, ['city.unregister_requested']);
});

t.test('a stopped city has no controller: unregistering it records no second stop', async (t) => {
  const stopped = run(up(), [{ type: 'STOP' }, { type: 'STOPPED' }]).snapshot;
  t.equal(leafState(stopped.value), 'stopped');
  t.equal(stopped.context.controllerUp, false);
  t.equal(stopped.context.startedAt, undefined);
  const gone = run(stopped, [{ type: 'UNREGISTER' }, { type: 'STOPPED' }]);
  t.equal(gone.snapshot.value, 'unregistered');
  t.same(gone.types, ['city.unregister_requested']);
});

t.test('unregistering a running city stops its controller and keeps why the stop failed', async (t) => {
  const { snapshot, types } = run(up(), [
    { type: 'UNREGISTER' },
    { type: 'STOPPED', error: 'kill timed out' },
  ]);
  t.equal(snapshot.value, 'unregistered');
  t.same(types, ['city.unregister_requested', 'controller.stopped']);
  t.equal(snapshot.context.controllerUp, false);
  t.equal(snapshot.context.startedAt, undefined);
  t.equal(snapshot.context.error, 'kill timed out');
  t.equal(cityStatus(snapshot.value), 'unregistered');
});

t.test('a city never started is unregistered without a controller to stop', async (t) => {
  const { snapshot, types } = run(registered(), [{ type: 'UNREGISTER' }, { type: 'STOPPED' }]);
  t.equal(snapshot.value, 'unregistered');
  t.same(types, ['city.unregister_requested']);
});

t.test('registering again starts from a clean slate and records the city anew', async (t) => {
  const unregistered = run(registered(), [
    { type: 'START' },
    { type: 'PHASE_COMPLETED', phase: 'materializing_packs' },
    { type: 'START_FAILED', error: 'no bead store' },
    { type: 'UNREGISTER' },
    { type: 'STOPPED', error: 'stuck' },
  ]).snapshot;
  t.same(unregistered.context.phasesCompleted, ['materializing_packs']);
  t.equal(unregistered.context.error, 'stuck');
  const again = run(unregistered, [{ type: 'REGISTER' }]);
  t.equal(leafState(again.snapshot.value), 'registered');
  t.same(again.snapshot.context.phasesCompleted, [], 'the old attempt’s phases are not this one’s');
  t.equal(again.snapshot.context.error, undefined, 'nor its error');
  t.same(
    again.records.map((r) => r.draft),
    [{ type: 'city.created', actor: 'gc', subject: 'alpha', payload: { name: 'alpha', path: '/c/alpha' } }],
  );
  t.equal(again.wakes, 1);
});

t.test('records carry no dedupe key: a city event may legitimately repeat', async (t) => {
  const { records } = run(fresh(), [{ type: 'REGISTER' }, { type: 'SUSPEND' }]);
  t.equal(records.length, 2);
  for (const r of records) {
    t.equal(r.type, 'record');
    t.notOk(Object.hasOwn(r, 'msgId'), `${r.draft.type} has no msgId`);
  }
});

t.test('every state has its public status text', async (t) => {
  const stopping = run(up(), [{ type: 'STOP' }]).snapshot;
  const stopped = run(stopping, [{ type: 'STOPPED' }]).snapshot;
  const failed = run(registered(), [{ type: 'START' }, { type: 'START_FAILED', error: 'e' }]).snapshot;
  const unregistering = run(up(), [{ type: 'UNREGISTER' }]).snapshot;
  const unregistered = run(unregistering, [{ type: 'STOPPED' }]).snapshot;
  const starting = run(registered(), [{ type: 'START' }]).snapshot;
  const cases: [CitySnapshot, string, string][] = [
    [fresh(), 'absent', 'starting_agents'],
    [registered(), 'registered', 'starting_agents'],
    [starting, 'starting', 'starting_agents'],
    [up(), 'running', 'running'],
    [stopping, 'stopping', 'stopping'],
    [stopped, 'stopped', 'stopped'],
    [failed, 'failed', 'failed'],
    [unregistering, 'unregistering', 'unregistering'],
    [unregistered, 'unregistered', 'unregistered'],
  ];
  for (const [s, leaf, status] of cases) {
    t.equal(leafState(s.value), leaf);
    t.equal(cityStatus(s.value), status, leaf);
  }
  // The value is `unknown`: one that is no state object is passed through, never read as one.
  t.equal(leafState(null), null);
  t.equal(leafState('running'), 'running');
});

const at = (type: string, seq = 1) => ({ seq, type, ts: `2026-01-01T00:00:0${seq}Z`, payload: {} });

t.test('each lifecycle record replays as the machine events that recorded it', async (t) => {
  t.same(cityEventsFromRecord(at('controller.stopped'), 'alpha'), [{ type: 'STOP' }, { type: 'STOPPED' }]);
  t.same(cityEventsFromRecord(at('city.resumed'), 'alpha'), [{ type: 'RESUME' }]);
  t.same(cityEventsFromRecord(at('city.suspended'), 'alpha'), [{ type: 'SUSPEND' }]);
  t.same(cityEventsFromRecord(at('controller.started', 3), 'alpha'), [
    { type: 'START' },
    { type: 'STARTED', at: '2026-01-01T00:00:03Z' },
  ]);
});

t.test('a replayed stop and resume end where the live city did', async (t) => {
  const live = run(fresh(), [
    { type: 'REGISTER' },
    { type: 'SUSPEND' },
    { type: 'START' },
    { type: 'STARTED', at: '2026-01-01T00:00:02Z' },
    { type: 'RESUME' },
    { type: 'STOP' },
    { type: 'STOPPED' },
  ]);
  const recorded = live.records.map((r, i) => ({ ...r.draft, seq: i + 1, ts: `2026-01-01T00:00:0${i}Z` }));
  const replayed = run(
    fresh(),
    recorded.flatMap((e) => cityEventsFromRecord(e, 'alpha')),
  ).snapshot;
  t.equal(leafState(replayed.value), 'stopped');
  t.equal(replayed.context.suspended, false);
  t.equal(replayed.context.controllerUp, false);
});

t.test('the folded types are exactly the ones the machine records', async (t) => {
  const { types } = run(fresh(), [
    { type: 'REGISTER' },
    { type: 'START' },
    { type: 'STARTED', at: 'x' },
    { type: 'SUSPEND' },
    { type: 'RESUME' },
    { type: 'STOP' },
    { type: 'STOPPED' },
    { type: 'UNREGISTER' },
  ]);
  // A custom event of any of these types would move a city's state on replay: each must be guarded.
  for (const type of new Set(types)) t.ok(CITY_FOLDED_TYPES.has(type), type);
  t.equal(CITY_FOLDED_TYPES.size, new Set(types).size, 'and nothing else');
  t.notOk(CITY_FOLDED_TYPES.has('bead.created'));
});

t.test('the actor hub lists a city actor under its name', async (t) => {
  const id = machineActorId({ machine: cityMachine, snapshot: registered() }, () => 'n');
  t.equal(id, 'city:alpha');
});
