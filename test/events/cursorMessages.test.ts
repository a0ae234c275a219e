// The composite cursor codec's refusals and its byte order at the edges (docs/testing.md, mutation
// testing): the server answers with these messages after `invalid: `, and the CLI relies on the same text.
import t from 'tap';
import { compareBytewise, CursorSyntaxError, parseCompositeCursor } from '../../schemas/compositeCursor.ts';

const refusal = (text: string, param?: string): CursorSyntaxError => {
  try {
    parseCompositeCursor(text, param);
  } catch (err) {
    if (err instanceof CursorSyntaxError) return err;
    throw err;
  }
  throw new Error(`${JSON.stringify(text)} was accepted`);
};

t.test('each malformed cursor is refused with its own reason', async (t) => {
  t.equal(
    refusal('').message,
    'cursor is not a valid event cursor (empty): ""',
    'the default param is cursor',
  );
  t.equal(refusal('', 'after').message, 'after is not a valid event cursor (empty): ""');
  t.equal(refusal('alpha').message, `cursor is not a valid event cursor (pair "alpha" has no ':'): "alpha"`);
  t.equal(refusal(':5').message, 'cursor is not a valid event cursor (pair ":5" has no name): ":5"');
  t.equal(
    refusal('alpha:x').message,
    'cursor is not a valid event cursor (pair "alpha:x" needs a non-negative integer seq): "alpha:x"',
  );
  t.equal(refusal('a:1,a:2').message, 'cursor is not a valid event cursor ("a" appears twice): "a:1,a:2"');
  t.equal(refusal('a:1,').message, `cursor is not a valid event cursor (pair "" has no ':'): "a:1,"`);
  t.equal(refusal('a').name, 'CursorSyntaxError');
});

t.test('a name may hold colons; the seq is after the last one', async (t) => {
  t.same([...parseCompositeCursor('rig:a:7')], [['rig:a', 7]]);
  t.same([...parseCompositeCursor('0')], [], 'the literal 0 is the empty cursor');
});

t.test('U+FFFF is one character, not the start of a pair', async (t) => {
  t.ok(compareBytewise('\uffffa', '\uffffb') < 0, 'the character after U+FFFF is compared');
  t.ok(compareBytewise('\u{10000}a', '\u{10000}b') < 0, 'the character after an astral one is compared');
  t.ok(compareBytewise('\u{10000}', '\uffff') > 0, 'astral sorts after U+FFFF in UTF-8');
  t.equal(compareBytewise('ab', 'ab'), 0);
});
