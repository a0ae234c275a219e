// The small functions of schemas/ that are logic rather than declarations (docs/testing.md, mutation
// testing): each case names the behaviour it guards, with expected values worked out by hand or, for the
// hash, by an independent FNV-1a implementation.
import t from 'tap';
import { Type } from 'typebox';
import { CAUSES_KEY, withCauses, withoutCauses } from '../../schemas/eventCauses.ts';
import {
  EVENT_CATALOG,
  isCatalogEventType,
  OUR_EVENT_TYPES,
  registerFamilyEvents,
} from '../../schemas/eventCatalog.ts';
import { DamagedRecordError, payloadAs } from '../../schemas/eventDecode.ts';
import { includeQueryParameter } from '../../schemas/eventInclude.ts';
import { named } from '../../schemas/named.ts';
import { parseQueryInteger, QUERY_INTEGER_MAX } from '../../schemas/queryInteger.ts';
import { sseResponseSchema } from '../../schemas/eventStreamFrames.ts';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';

t.test('causes are stored under after_heads, and only when there are some', async (t) => {
  t.equal(CAUSES_KEY, 'after_heads', 'the stored key is part of the journal format');
  const payload = { name: 'alpha' };
  t.same(withCauses(payload, { __supervisor__: 4 }), { name: 'alpha', after_heads: { __supervisor__: 4 } });
  t.equal(withCauses(payload, undefined), payload, 'no heads: the same object');
  t.equal(withCauses(payload, {}), payload, 'empty heads: the same object, no key');
  t.same(payload, { name: 'alpha' }, 'the input is not changed');
});

t.test('withoutCauses strips the key and leaves everything else as it is', async (t) => {
  const stored = { name: 'alpha', after_heads: { beta: 2 } };
  t.same(withoutCauses(stored), { name: 'alpha' });
  t.ok(Object.hasOwn(stored, 'after_heads'), 'the stored payload is not changed');
  const plain = { name: 'alpha' };
  t.equal(withoutCauses(plain), plain, 'no key: the same object');
  t.equal(withoutCauses(null), null);
  t.equal(withoutCauses(undefined), undefined);
  t.equal(withoutCauses('after_heads'), 'after_heads', 'a string payload is not an object');
  const list = ['after_heads'];
  t.equal(withoutCauses(list), list, 'an array without the key is returned as is');
  const inherited = Object.create({ after_heads: 1 }) as object;
  t.equal(withoutCauses(inherited), inherited, 'an inherited key is not the stored one');
});

t.test('payloadAs decodes a matching payload and reads an absent one as {}', async (t) => {
  const bead = { id: 'gc-1', title: 't', status: 'open', issue_type: 'task' };
  const event = { seq: 3, type: 'bead.created', payload: { bead } };
  t.same(payloadAs('alpha', event, 'bead.created'), { bead }, 'no extra check: fine');
  t.same(payloadAs('alpha', { seq: 4, type: 'session.woke', payload: undefined }, 'session.woke'), {});
  t.same(
    payloadAs('alpha', event, 'bead.created', () => undefined),
    { bead },
    'extra says fine',
  );
});

t.test('payloadAs refuses a damaged record with its log, seq, type and every problem', async (t) => {
  const missing = { seq: 7, type: 'bead.created', payload: {} };
  const err = t.throws(() => payloadAs('alpha', missing, 'bead.created')) as DamagedRecordError;
  t.ok(err instanceof DamagedRecordError);
  t.equal(err.name, 'DamagedRecordError');
  t.match(err, { log: 'alpha', seq: 7, type: 'bead.created' });
  t.match(err.problems[0], /^\/: /, 'a problem at the root is placed at /');
  t.equal(err.message, `damaged record in log alpha at seq 7 (bead.created): ${err.problems.join('; ')}`);
  const wrong = { seq: 8, type: 'bead.created', payload: { bead: 5 } };
  const deep = t.throws(() => payloadAs('beta', wrong, 'bead.created')) as DamagedRecordError;
  t.ok(
    deep.problems.some((p) => p.startsWith('/bead: ')),
    'a nested problem keeps its path',
  );
  const bead = { id: 'gc-1', title: 't', status: 'open', issue_type: 'task' };
  const refused = t.throws(() =>
    payloadAs('alpha', { seq: 9, type: 'bead.created', payload: { bead } }, 'bead.created', () => 'no rig'),
  ) as DamagedRecordError;
  t.same(refused.problems, ['no rig'], "the extra check's problem, alone");
  const several = t.throws(() =>
    payloadAs('alpha', { seq: 11, type: 'city.created', payload: { name: 5, path: 6 } }, 'city.created'),
  ) as DamagedRecordError;
  t.ok(several.problems.length > 1, 'a city with neither name nor path as strings has several problems');
  t.ok(several.message.endsWith(`: ${several.problems.join('; ')}`), 'all of them, joined by "; "');
  t.throws(() => payloadAs('alpha', { seq: 10, type: 'session.woke', payload: 5 }, 'session.woke'));
});

t.test('the catalogue: lookups, and families registering their types', async (t) => {
  t.equal(isCatalogEventType('bead.created'), true);
  t.equal(isCatalogEventType('request.accepted'), true, 'our own types are in it');
  t.equal(isCatalogEventType('no.such_type'), false);
  t.equal(isCatalogEventType('toString'), false, 'not an inherited property');
  const probe = named(Type.Object({}, { $id: 'MutationProbePayload' }));
  t.equal(isCatalogEventType('test.probe_registered'), false);
  registerFamilyEvents({ 'test.probe_registered': probe });
  t.equal(isCatalogEventType('test.probe_registered'), true, 'registered');
  t.ok(OUR_EVENT_TYPES.has('test.probe_registered'), 'and counted as ours');
  t.equal(Reflect.get(EVENT_CATALOG, 'test.probe_registered'), probe);
  t.doesNotThrow(() => registerFamilyEvents({ 'test.probe_registered': probe }), 'the same schema again');
  const other = named(Type.Object({ x: Type.String() }, { $id: 'OtherProbePayload' }));
  t.throws(
    () => registerFamilyEvents({ 'test.probe_registered': other }),
    { message: 'event type test.probe_registered is already in the catalogue' },
    'another schema for a known type',
  );
  t.throws(() => registerFamilyEvents({ 'bead.created': other }), /already in the catalogue/, 'a core type');
  t.equal(Reflect.get(EVENT_CATALOG, 'test.probe_registered'), probe, 'the refusal changed nothing');
});

t.test('named insists on an $id', async (t) => {
  const withId = Type.String({ $id: 'Thing' });
  t.equal(named(withId), withId);
  t.throws(() => named(Type.String()), { message: 'shared schema without $id' });
});

t.test('the query integer grammar reaches exactly QUERY_INTEGER_MAX', async (t) => {
  t.equal(parseQueryInteger(String(QUERY_INTEGER_MAX)), QUERY_INTEGER_MAX, 'the maximum itself');
  t.equal(parseQueryInteger('9007199254740992'), undefined, 'one past it');
  t.equal(parseQueryInteger('007'), 7);
  t.equal(parseQueryInteger('1e3'), undefined);
});

t.test('include=internal is the only non-empty value of the include parameter', async (t) => {
  const schema = includeQueryParameter().include as unknown as { enum: string[] };
  t.same(schema.enum, ['internal', '']);
});

t.test("a city's tmux socket name: safe characters, 40 at most, and FNV-1a of GC_HOME", async (t) => {
  // Hashes from an independent FNV-1a (32 bit) implementation; 811c9dc5 is the hash of nothing.
  t.equal(tmuxSocketFor('alpha', ''), 'gc-alpha-811c9dc5');
  t.equal(tmuxSocketFor('Ab_9-z', 'a'), 'gc-Ab_9-z-e40c292c', 'letters, digits, _ and - are kept');
  t.equal(tmuxSocketFor('my city/2', 'foobar'), 'gc-my_city_2-bf9cf968', 'anything else becomes _');
  t.equal(tmuxSocketFor('', '/home/208'), 'gc-_-0cb3f780', 'an empty name is _; the hash keeps 8 digits');
  t.equal(tmuxSocketFor('x', '/home/zoë'), 'gc-x-d768ff63', 'the home is hashed as UTF-8');
  t.equal(tmuxSocketFor('n'.repeat(50), ''), `gc-${'n'.repeat(40)}-811c9dc5`, 'the name is cut at 40');
});

t.test('an SSE frame with an id: documents it, by default as the `id:` line', async (t) => {
  const schema = sseResponseSchema([
    { event: 'event', data: 'EventEnvelope', id: 'integer' },
    { event: 'tagged_event', data: 'TaggedEventEnvelope', id: 'string', idDescription: 'The cursor.' },
    { event: 'heartbeat', data: 'HeartbeatEvent' },
  ]) as unknown as { items: { oneOf: Array<{ properties: Record<string, unknown> }> } };
  const [plain, described, heartbeat] = schema.items.oneOf;
  t.same(plain!.properties.id, { type: 'integer', description: 'The `id:` line.' });
  t.same(described!.properties.id, { type: 'string', description: 'The cursor.' });
  t.notOk('id' in heartbeat!.properties, 'a frame without an id has no id property');
});
