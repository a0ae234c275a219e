import t from 'tap';
import { toTaggedWireEvent, toWireEvent, wireCity, wirePayload } from '../../http/events/wire.ts';

const event = { seq: 3, type: 'custom.x', ts: '2026-01-01T00:00:00Z', actor: 'a' };

t.test('envelopes keep upstream field order and omit empty subject and message', async (t) => {
  const wire = toWireEvent({ ...event, subject: '', message: 'm', payload: { k: 1 } });
  t.same(Object.keys(wire), ['seq', 'type', 'ts', 'actor', 'message', 'payload']);
  const tagged = toTaggedWireEvent({ ...event, subject: 's' }, 'alpha');
  t.same(Object.keys(tagged), ['seq', 'type', 'ts', 'actor', 'subject', 'payload', 'city']);
  t.same(tagged.payload, {});
});

t.test('custom payloads pass through unchanged; absent ones become {}', async (t) => {
  t.same(wirePayload('custom.x', [1, 2]), [1, 2]);
  t.equal(wirePayload('custom.x', null), null);
  t.same(wirePayload('custom.x', undefined), {});
});

t.test('registered payloads that match pass through as the same object; others are normalised', async (t) => {
  const ok = { request_id: 'r', operation: 'city.create', error_code: 'e', error_message: 'm' };
  t.equal(wirePayload('request.failed', ok), ok);
  t.same(wirePayload('session.woke', { stray: true }), {});
  t.same(wirePayload('supervisor.started', {}), { previous_exit: 'clean' });
  t.same(wirePayload('emergency.acked', { id: 'e' }), {
    id: 'e',
    severity: '',
    actor: '',
    message: '',
    created_at: '0001-01-01T00:00:00Z',
  });
});

t.test('city of a supervisor event: the source log, or the city a request result concerns', async (t) => {
  const sup = (type: string, subject?: string, payload?: unknown) => ({ ...event, type, subject, payload });
  t.equal(
    wireCity('alpha', sup('request.failed', 'beta')),
    'alpha',
    'only __supervisor__ events are re-tagged',
  );
  t.equal(wireCity('__supervisor__', sup('request.result.city.create', 'mc-city')), 'mc-city');
  t.equal(wireCity('__supervisor__', sup('request.result.city.unregister', '', { name: 'gone' })), 'gone');
  t.equal(wireCity('__supervisor__', sup('request.failed')), '__supervisor__', 'nothing to name: the source');
  t.equal(wireCity('__supervisor__', sup('supervisor.started', 'x')), '__supervisor__');
});
