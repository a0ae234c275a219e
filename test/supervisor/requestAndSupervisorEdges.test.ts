/**
 * Edges of the request and supervisor machines that machines.test.ts leaves out: a failed request keeps its
 * error and ends, the replay of successful results (with and without stored causes), what other kinds of
 * record say about requests and the supervisor (nothing), a crash during a stop, the ids the actor hub lists
 * them under, and the `record` emission itself.
 */
import t from 'tap';
import { initialTransition, transition, type ExecutableActionObject } from 'xstate';
import { machineActorId } from '../../actors/inspect/actorInspection.ts';
import { recordOf, type RecordEvent } from '../../machines/recorded.ts';
import {
  requestMachine,
  requestRecordOf,
  type RequestEvent,
  type RequestInput,
} from '../../machines/request.machine.ts';
import {
  previousExitOf,
  supervisorEventsFromRecord,
  supervisorMachine,
} from '../../machines/supervisor.machine.ts';
import { CAUSES_KEY } from '../../schemas/eventCauses.ts';

const input: RequestInput = {
  request_id: 'req-7',
  operation: 'city.create',
  name: 'alpha',
  path: '/c/alpha',
};

function runRequest(events: RequestEvent[], given = input) {
  let s = initialTransition(requestMachine, given)[0];
  const records: RecordEvent[] = [];
  for (const e of events) {
    const [next, actions] = transition(requestMachine, s, e);
    for (const a of actions as ExecutableActionObject[])
      if (a.type === 'xstate.emit') records.push((a.params as { event: RecordEvent }).event);
    s = next;
  }
  return { snapshot: s, records };
}

t.test('a failed request keeps its error and is over', async (t) => {
  const { snapshot } = runRequest([
    { type: 'ACCEPT' },
    { type: 'FAIL', error_code: 'city_create_failed', error_message: 'disk full' },
  ]);
  t.equal(snapshot.value, 'failed');
  t.equal(snapshot.context.error_code, 'city_create_failed');
  t.equal(snapshot.context.error_message, 'disk full');
  // A done actor is what lets the hub drop it and the supervisor forget the request.
  t.equal(snapshot.status, 'done');
});

const recorded = (type: string, payload: unknown, seq = 2) => ({
  seq,
  type,
  ts: '2026-01-01T00:00:02Z',
  payload,
});

t.test('a successful result of either operation replays as SUCCEED', async (t) => {
  for (const operation of ['city.create', 'city.unregister'] as const) {
    const { records } = runRequest([{ type: 'ACCEPT' }, { type: 'SUCCEED' }], { ...input, operation });
    const result = records[1]!.draft;
    t.equal(result.type, `request.result.${operation}`);
    t.same(requestRecordOf(recorded(result.type, result.payload), '__supervisor__'), {
      request_id: 'req-7',
      events: [{ type: 'SUCCEED' }],
    });
  }
});

t.test('causes stored with a terminal event do not make it a damaged record', async (t) => {
  const { records } = runRequest([{ type: 'ACCEPT' }, { type: 'SUCCEED', causes: { alpha: 4 } }]);
  const payload = records[1]!.draft.payload as Record<string, unknown>;
  t.same(payload[CAUSES_KEY], { alpha: 4 }, 'the heads are stored');
  t.same(requestRecordOf(recorded('request.result.city.create', payload), '__supervisor__'), {
    request_id: 'req-7',
    events: [{ type: 'SUCCEED' }],
  });
});

t.test('a replayed success ends the request as the live one did', async (t) => {
  const live = runRequest([{ type: 'ACCEPT' }, { type: 'SUCCEED' }]);
  const events = live.records.flatMap(
    (r, i) => requestRecordOf(recorded(r.draft.type, r.draft.payload, i + 1), '__supervisor__')?.events ?? [],
  );
  const replayed = runRequest(events);
  t.equal(replayed.snapshot.value, 'succeeded');
  t.equal(replayed.snapshot.status, 'done');
});

t.test('records of other kinds say nothing about requests', async (t) => {
  // The supervisor log holds the supervisor's own events too: they are not damaged request records.
  t.equal(
    requestRecordOf(recorded('supervisor.started', { previous_exit: 'clean' }), '__supervisor__'),
    undefined,
  );
  t.equal(requestRecordOf(recorded('city.created', { name: 'a', path: '/a' }), '__supervisor__'), undefined);
  // Only city operations are the supervisor's requests.
  t.equal(
    requestRecordOf(recorded('request.result.session.create', { request_id: 'r' }), '__supervisor__'),
    undefined,
  );
});

t.test('the actor hub lists a request under its id and the supervisor by name', async (t) => {
  const request = initialTransition(requestMachine, input)[0];
  t.equal(
    machineActorId({ machine: requestMachine, snapshot: request }, () => '1'),
    'request:req-7',
  );
  const supervisor = initialTransition(supervisorMachine)[0];
  t.equal(
    machineActorId({ machine: supervisorMachine, snapshot: supervisor }, () => '1'),
    'supervisor',
  );
});

t.test('a run that dies while stopping crashed', async (t) => {
  let s = initialTransition(supervisorMachine)[0];
  for (const e of [{ type: 'BOOTED', previous_exit: 'unknown' }, { type: 'STOP' }] as const)
    s = transition(supervisorMachine, s, e)[0];
  t.equal(s.value, 'stopping');
  t.equal(previousExitOf(s.value), 'crash', 'no supervisor.stopped was recorded');
  t.equal(previousExitOf('never'), 'unknown');
});

t.test('other kinds of record do not move the supervisor', async (t) => {
  t.same(supervisorEventsFromRecord(recorded('request.accepted', input), '__supervisor__'), []);
  t.same(
    supervisorEventsFromRecord(recorded('city.created', { name: 'a', path: '/a' }), '__supervisor__'),
    [],
  );
});

t.test('a record emission carries a dedupe key only when given one', async (t) => {
  const draft = { type: 'city.suspended', actor: 'gc', subject: 'alpha', payload: {} } as const;
  const plain = recordOf(draft);
  t.equal(plain.type, 'record', 'the actor appends only emissions of type record');
  t.equal(plain.draft, draft);
  t.notOk(Object.hasOwn(plain, 'msgId'), 'no key: nothing to dedupe against');
  t.same(recordOf(draft, 'terminal:r'), { type: 'record', draft, msgId: 'terminal:r' });
});
