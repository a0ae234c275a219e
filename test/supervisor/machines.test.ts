import t from 'tap';
import {
  initialTransition,
  transition,
  type AnyStateMachine,
  type EventFromLogic,
  type ExecutableActionObject,
  type SnapshotFrom,
} from 'xstate';
import { cityEventsFromRecord, cityMachine, cityStatus, leafState } from '../../machines/city.machine.ts';
import type { RecordEvent } from '../../machines/recorded.ts';
import { requestMachine, requestRecordOf } from '../../machines/request.machine.ts';
import {
  previousExitOf,
  supervisorEventsFromRecord,
  supervisorMachine,
} from '../../machines/supervisor.machine.ts';

/** Given a snapshot, when events arrive, then: the final snapshot and everything recorded on the way. */
function run<M extends AnyStateMachine>(machine: M, snapshot: SnapshotFrom<M>, events: EventFromLogic<M>[]) {
  const records: RecordEvent[] = [];
  let s = snapshot;
  for (const e of events) {
    const [next, actions] = transition(machine, s, e);
    for (const a of actions as ExecutableActionObject[])
      if (a.type === 'xstate.emit') records.push((a.params as { event: RecordEvent }).event);
    s = next;
  }
  return { snapshot: s, records };
}

const asRecorded = (records: RecordEvent[]) =>
  records.map((r, i) => ({ ...r.draft, seq: i + 1, ts: `2026-01-01T00:00:0${i}Z` }));

const input = { request_id: 'req-1', operation: 'city.create' as const, name: 'alpha', path: '/c/alpha' };

t.test('a request records its acceptance, then exactly one terminal event', async (t) => {
  const [s0] = initialTransition(requestMachine, input);
  const { snapshot, records } = run(requestMachine, s0, [
    { type: 'ACCEPT' },
    { type: 'SUCCEED' },
    { type: 'SUCCEED' },
    { type: 'FAIL', error_code: 'x', error_message: 'y' },
  ]);
  t.equal(snapshot.value, 'succeeded');
  t.equal(snapshot.status, 'done');
  t.same(records, [
    {
      type: 'record',
      msgId: 'accepted:req-1',
      draft: { type: 'request.accepted', actor: 'api', subject: 'alpha', payload: { ...input } },
    },
    {
      type: 'record',
      msgId: 'terminal:req-1',
      draft: {
        type: 'request.result.city.create',
        actor: 'api',
        subject: 'alpha',
        payload: { request_id: 'req-1', name: 'alpha', path: '/c/alpha' },
      },
    },
  ]);
});

t.test('a failed request records request.failed with the operation and error', async (t) => {
  const [s0] = initialTransition(requestMachine, { ...input, operation: 'city.unregister' });
  const { snapshot, records } = run(requestMachine, s0, [
    { type: 'ACCEPT' },
    { type: 'FAIL', error_code: 'city_unregister_failed', error_message: 'boom' },
    { type: 'SUCCEED' },
  ]);
  t.equal(snapshot.value, 'failed');
  t.equal(records.length, 2);
  t.same(records[1]!.draft.payload, {
    request_id: 'req-1',
    operation: 'city.unregister',
    error_code: 'city_unregister_failed',
    error_message: 'boom',
  });
  t.equal(records[1]!.msgId, 'terminal:req-1');
});

t.test('a request is not terminated before it is accepted', async (t) => {
  const [s0] = initialTransition(requestMachine, input);
  const { snapshot, records } = run(requestMachine, s0, [{ type: 'SUCCEED' }]);
  t.equal(snapshot.value, 'new');
  t.same(records, []);
});

t.test('replaying what a request recorded rebuilds its state', async (t) => {
  const [s0] = initialTransition(requestMachine, input);
  const live = run(requestMachine, s0, [
    { type: 'ACCEPT' },
    { type: 'FAIL', error_code: 'c', error_message: 'm' },
  ]);
  const recorded = asRecorded(live.records);
  const rebuiltInput = requestRecordOf(recorded[0]!, '__supervisor__')?.input;
  t.same(rebuiltInput, input);
  const replayed = run(
    requestMachine,
    initialTransition(requestMachine, rebuiltInput!)[0],
    recorded.flatMap((e) => requestRecordOf(e, '__supervisor__')?.events ?? []),
  );
  t.equal(replayed.snapshot.value, live.snapshot.value);
  t.same(replayed.snapshot.context, live.snapshot.context);
});

const city = { name: 'alpha', path: '/c/alpha' };
const newCity = () => initialTransition(cityMachine, city)[0];

t.test('a city registers, starts through its phases with running=false, then runs', async (t) => {
  const { snapshot: starting, records: r1 } = run(cityMachine, newCity(), [
    { type: 'REGISTER' },
    { type: 'START' },
    { type: 'PHASE_COMPLETED', phase: 'materializing_packs' },
  ]);
  t.equal(leafState(starting.value), 'starting');
  t.equal(cityStatus(starting.value), 'starting_agents');
  t.same(starting.context.phasesCompleted, ['materializing_packs']);
  t.same(
    r1.map((r) => r.draft),
    [{ type: 'city.created', actor: 'gc', subject: 'alpha', payload: city }],
  );
  const { snapshot: running, records: r2 } = run(cityMachine, starting, [
    { type: 'STARTED', at: '2026-01-01T00:00:00Z' },
  ]);
  t.equal(leafState(running.value), 'running');
  t.equal(running.context.startedAt, '2026-01-01T00:00:00Z');
  t.same(
    r2.map((r) => r.draft.type),
    ['controller.started'],
  );
});

t.test('a failed start keeps the error and can be retried', async (t) => {
  const { snapshot, records } = run(cityMachine, newCity(), [
    { type: 'REGISTER' },
    { type: 'START' },
    { type: 'START_FAILED', error: 'no bead store' },
  ]);
  t.equal(leafState(snapshot.value), 'failed');
  t.equal(snapshot.context.error, 'no bead store');
  t.equal(records.length, 1, 'a failed start records nothing');
  const retried = run(cityMachine, snapshot, [{ type: 'START' }]).snapshot;
  t.equal(leafState(retried.value), 'starting');
  t.equal(retried.context.error, undefined);
});

t.test('stop and unregister record controller.stopped only for a controller that was up', async (t) => {
  const up = run(cityMachine, newCity(), [
    { type: 'REGISTER' },
    { type: 'START' },
    { type: 'STARTED', at: 'x' },
  ]).snapshot;
  const stopped = run(cityMachine, up, [{ type: 'STOP' }, { type: 'STOPPED' }]);
  t.equal(leafState(stopped.snapshot.value), 'stopped');
  t.same(
    stopped.records.map((r) => r.draft.type),
    ['controller.stopped'],
  );

  const unreg = run(cityMachine, up, [{ type: 'UNREGISTER' }, { type: 'STOPPED' }]);
  t.equal(unreg.snapshot.value, 'unregistered');
  const again = run(cityMachine, unreg.snapshot, [{ type: 'REGISTER' }]);
  t.equal(leafState(again.snapshot.value), 'registered', 'an unregistered city may be registered again');
  t.same(
    again.records.map((r) => r.draft.type),
    ['city.created'],
  );
  t.same(
    unreg.records.map((r) => r.draft.type),
    ['city.unregister_requested', 'controller.stopped'],
  );
  t.same(unreg.records[0]!.draft.payload, city);

  const never = run(cityMachine, run(cityMachine, newCity(), [{ type: 'REGISTER' }]).snapshot, [
    { type: 'UNREGISTER' },
    { type: 'STOPPED', error: 'stuck' },
  ]);
  t.same(
    never.records.map((r) => r.draft.type),
    ['city.unregister_requested'],
  );
  t.equal(never.snapshot.context.error, 'stuck');
});

t.test('suspend and resume record only real changes', async (t) => {
  const reg = run(cityMachine, newCity(), [{ type: 'REGISTER' }]).snapshot;
  const { snapshot, records } = run(cityMachine, reg, [
    { type: 'SUSPEND' },
    { type: 'SUSPEND' },
    { type: 'RESUME' },
    { type: 'RESUME' },
  ]);
  t.same(
    records.map((r) => r.draft.type),
    ['city.suspended', 'city.resumed'],
  );
  t.equal(snapshot.context.suspended, false);
});

t.test(
  'after a restart (RECOVER) a running or stopped city starts again; unregistering continues',
  async (t) => {
    const up = run(cityMachine, newCity(), [
      { type: 'REGISTER' },
      { type: 'START' },
      { type: 'STARTED', at: 'x' },
    ]).snapshot;
    t.equal(leafState(run(cityMachine, up, [{ type: 'RECOVER' }]).snapshot.value), 'registered');
    const stopped = run(cityMachine, up, [{ type: 'STOP' }, { type: 'STOPPED' }]).snapshot;
    t.equal(leafState(run(cityMachine, stopped, [{ type: 'RECOVER' }]).snapshot.value), 'registered');
    const leaving = run(cityMachine, up, [{ type: 'UNREGISTER' }]).snapshot;
    t.equal(leafState(run(cityMachine, leaving, [{ type: 'RECOVER' }]).snapshot.value), 'unregistering');
  },
);

t.test('replaying what a city recorded rebuilds its durable state', async (t) => {
  const live = run(cityMachine, newCity(), [
    { type: 'REGISTER' },
    { type: 'START' },
    { type: 'PHASE_COMPLETED', phase: 'p' },
    { type: 'STARTED', at: '2026-01-01T00:00:02Z' },
    { type: 'SUSPEND' },
    { type: 'STOP' },
    { type: 'STOPPED' },
    { type: 'START' },
    { type: 'STARTED', at: '2026-01-01T00:00:05Z' },
    { type: 'UNREGISTER' },
  ]);
  const replayed = run(
    cityMachine,
    newCity(),
    asRecorded(live.records).flatMap((e) => cityEventsFromRecord(e, 'alpha')),
  );
  t.same(replayed.snapshot.value, live.snapshot.value);
  t.equal(replayed.snapshot.context.suspended, true);
  t.equal(replayed.snapshot.context.controllerUp, true);
  t.same(
    cityEventsFromRecord({ seq: 1, type: 'bead.created', ts: 'x' }, 'alpha'),
    [],
    'other kinds are not the city machine’s',
  );
});

t.test('the supervisor log says how the previous run ended', async (t) => {
  const [s0] = initialTransition(supervisorMachine);
  t.equal(previousExitOf(s0.value), 'unknown', 'an empty log');
  const first = run(supervisorMachine, s0, [{ type: 'BOOTED', previous_exit: 'unknown' }]);
  t.same(
    first.records.map((r) => r.draft),
    [
      {
        type: 'supervisor.started',
        actor: 'gc',
        subject: 'supervisor',
        payload: { previous_exit: 'unknown' },
      },
    ],
  );
  t.equal(previousExitOf(first.snapshot.value), 'crash', 'a run that never recorded its stop crashed');
  const clean = run(supervisorMachine, first.snapshot, [{ type: 'STOP' }, { type: 'STOPPED' }]);
  t.same(
    clean.records.map((r) => r.draft.type),
    ['supervisor.stopped'],
  );
  t.equal(previousExitOf(clean.snapshot.value), 'clean');

  const replayed = run(
    supervisorMachine,
    s0,
    asRecorded([...first.records, ...clean.records]).flatMap((e) =>
      supervisorEventsFromRecord(e, '__supervisor__'),
    ),
  );
  t.equal(replayed.snapshot.value, 'stopped');
  const again = run(supervisorMachine, replayed.snapshot, [{ type: 'BOOTED', previous_exit: 'clean' }]);
  t.equal(again.snapshot.value, 'running');
  t.same(again.records[0]!.draft.payload, { previous_exit: 'clean' });
});
