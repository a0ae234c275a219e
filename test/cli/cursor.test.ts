import t from 'tap';
import { CursorPosition, SeqPosition } from '../../cli/cursor.ts';

// The cursor grammar itself is the server's (schemas/compositeCursor.ts): test/events/cursor.test.ts covers
// it, and test/cli/cursorShared.test.ts holds the CLI to it.

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

t.test('a seq position places only ids of the query integer grammar', async (t) => {
  const p = new SeqPosition(5);
  for (const id of ['99999999999999999', '1e3', '0x10', ' 7', '-1']) {
    t.ok(p.advance(id), `${JSON.stringify(id)} cannot be placed: let through`);
    t.equal(p.resume, '5', `${JSON.stringify(id)} does not move the position`);
  }
  t.ok(p.advance('007'), 'leading zeros are decimal, as the server reads them');
  t.equal(p.resume, '7');
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
