import t from 'tap';
import { CursorPosition, parseCursor, SeqPosition } from '../../cli/cursor.ts';

t.test('parses composite cursors, names with colons included', async (t) => {
  t.same(
    [...parseCursor('__supervisor__:42,my-city:17')],
    [
      ['__supervisor__', 42],
      ['my-city', 17],
    ],
  );
  t.same([...parseCursor('a:b:3')], [['a:b', 3]], 'split on the last colon');
  t.same([...parseCursor('0')], [], '"0" is the empty cursor');
  t.same([...parseCursor('')], []);
  t.same([...parseCursor('alpha:0')], [['alpha', 0]]);
});

t.test('refuses malformed cursors instead of silently replaying everything', async (t) => {
  for (const bad of ['garbage', 'a:', ':3', 'a:-1', 'a:1x', 'a:1,,b:2']) {
    t.throws(() => parseCursor(bad), { message: `invalid cursor "${bad}"` }, bad);
  }
});

t.test('a seq position drops frames at or below the last one and resumes after it', async (t) => {
  const p = new SeqPosition();
  t.equal(p.resume, undefined, 'no start: the server head');
  t.ok(p.advance('5'));
  t.equal(p.resume, '5');
  t.notOk(p.advance('5'), 'repeat');
  t.notOk(p.advance('4'), 'older');
  t.ok(p.advance('6'));
  t.ok(p.advance(undefined), 'a frame without id is let through');
  t.equal(p.resume, '6', '… and does not move the position');
  t.equal(new SeqPosition(41).resume, '41');
  t.notOk(new SeqPosition(41).advance('41'));
});

t.test('a cursor position lets a frame through only when some stream moved forward', async (t) => {
  const p = new CursorPosition('__supervisor__:1,alpha:3');
  t.notOk(p.advance('__supervisor__:1,alpha:3'), 'the same cursor again is a repeat');
  t.notOk(p.advance('alpha:2'), 'older');
  t.ok(p.advance('__supervisor__:1,alpha:4'));
  t.equal(p.resume, '__supervisor__:1,alpha:4');
  t.ok(p.advance('__supervisor__:1,alpha:4,beta:1'), 'a new city counts from 0');
  t.notOk(p.advance('__supervisor__:1,alpha:4'), 'a cursor without the new city is not ahead');
  const head = new CursorPosition();
  t.ok(head.advance('alpha:1'), 'with no start the first frame is new');
  t.notOk(head.advance('alpha:1'));
  t.ok(new CursorPosition('0').advance('alpha:1'));
});
