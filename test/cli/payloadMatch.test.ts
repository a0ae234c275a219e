import t from 'tap';
import { parsePayloadMatch, payloadMatches } from '../../cli/payloadMatch.ts';

const m = (...args: string[]) => parsePayloadMatch(args);

t.test('parsing splits at the first = and keeps the rest of the value', async (t) => {
  t.same([...m('a=b=c')], [['a', ['b=c']]]);
  t.same([...m('a=')], [['a', ['']]], 'an empty value is a value');
  t.same(
    [...m('a=1', 'b=2', 'a=3')],
    [
      ['a', ['1', '3']],
      ['b', ['2']],
    ],
  );
});

t.test('parsing refuses an argument without = or with an empty key', async (t) => {
  for (const arg of ['nokey', '=v', ' =v', '']) {
    t.throws(() => m(arg), { message: `invalid --payload-match "${arg}": expected key=value` }, arg);
  }
});

t.test('an empty matcher matches every payload, even a missing one', async (t) => {
  t.ok(payloadMatches(m(), undefined));
  t.ok(payloadMatches(m(), { a: 1 }));
});

t.test('top-level string fields compare as text', async (t) => {
  t.ok(payloadMatches(m('request_id=req-1'), { request_id: 'req-1' }));
  t.notOk(payloadMatches(m('request_id=req-1'), { request_id: 'req-2' }));
  t.notOk(payloadMatches(m('request_id=req-1'), {}), 'missing field');
  t.notOk(payloadMatches(m('request_id=req-1'), undefined), 'missing payload');
  t.notOk(payloadMatches(m('request_id=req-1'), 'req-1'), 'a non-object payload has no fields');
});

t.test('dotted paths walk nested objects', async (t) => {
  const payload = { bead: { issue_type: 'bug', meta: { depth: { n: 'deep' } } } };
  t.ok(payloadMatches(m('bead.issue_type=bug'), payload));
  t.ok(payloadMatches(m('bead.meta.depth.n=deep'), payload));
  t.notOk(payloadMatches(m('bead.issue_type=task'), payload));
  t.notOk(payloadMatches(m('bead.nope=bug'), payload));
  t.notOk(payloadMatches(m('bead.issue_type.x=bug'), payload), 'cannot descend into a string');
});

t.test('an exact dotted key wins over the nested path at each level', async (t) => {
  const payload = { 'a.b': 'flat', a: { b: 'nested', 'c.d': 'inner-flat', c: { d: 'inner-nested' } } };
  t.ok(payloadMatches(m('a.b=flat'), payload));
  t.notOk(payloadMatches(m('a.b=nested'), payload));
  t.ok(payloadMatches(m('a.c.d=inner-flat'), payload), 'the rule applies again one level down');
  t.ok(payloadMatches(m('x.y.z=1'), { 'x.y': { z: '1' } }), 'a dotted key can also be a prefix');
});

t.test('non-string values compare as their compact JSON text', async (t) => {
  const payload = { n: 3, f: 1.5, ok: true, no: false, nil: null, list: ['a', 1], obj: { k: 'v' } };
  t.ok(payloadMatches(m('n=3'), payload));
  t.notOk(payloadMatches(m('n=3.0'), payload));
  t.ok(payloadMatches(m('f=1.5'), payload));
  t.ok(payloadMatches(m('ok=true'), payload));
  t.ok(payloadMatches(m('no=false'), payload));
  t.ok(payloadMatches(m('nil=null'), payload));
  t.ok(payloadMatches(m('list=["a",1]'), payload));
  t.ok(payloadMatches(m('obj={"k":"v"}'), payload));
  t.notOk(payloadMatches(m('n="3"'), payload), 'a quoted value is a different text');
  t.ok(payloadMatches(m('s=3'), { s: '3' }), 'the string "3" is the text 3');
});

t.test('the same path repeated is OR, different paths are AND', async (t) => {
  const f = m('kind=bug', 'kind=task', 'rig=alpha');
  t.ok(payloadMatches(f, { kind: 'bug', rig: 'alpha' }));
  t.ok(payloadMatches(f, { kind: 'task', rig: 'alpha' }));
  t.notOk(payloadMatches(f, { kind: 'epic', rig: 'alpha' }));
  t.notOk(payloadMatches(f, { kind: 'bug', rig: 'beta' }));
  t.notOk(payloadMatches(f, { kind: 'bug' }));
});
