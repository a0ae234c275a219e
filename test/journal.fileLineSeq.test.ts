import t from 'tap';
import { INCONCLUSIVE, lineSeq } from '../actors/runtime/journal/logLineSeq.ts';
import { storedSeq, storedSeqOfBytes } from '../actors/runtime/journal/logRecovery.ts';

/** `lineSeq` of one line given as bytes (a string is taken as UTF-8), with its newline. */
const cheap = (line: string | Buffer): number => {
  const bytes = Buffer.concat([typeof line === 'string' ? Buffer.from(line) : line, Buffer.from('\n')]);
  return lineSeq(bytes, 0, bytes.length - 1);
};

/** What a full parse says the line's seq is, or undefined when the line is no event at all. */
const parsed = (line: string | Buffer): number | undefined =>
  storedSeq(typeof line === 'string' ? line : line.toString('utf8'), 0, Number.MAX_SAFE_INTEGER);

/** The answer of the open-time scan, which takes the fast path when it can. */
const scanned = (line: string | Buffer): number | undefined => {
  const bytes = Buffer.concat([typeof line === 'string' ? Buffer.from(line) : line, Buffer.from('\n')]);
  return storedSeqOfBytes(bytes, 0, bytes.length - 1, 0, Number.MAX_SAFE_INTEGER);
};

const event = (seq: number, rest: Record<string, unknown> = {}) =>
  JSON.stringify({ seq, type: 'bead.updated', ts: '2030-01-01T00:00:00.000Z', actor: 'tester', ...rest });

t.test('lines as our writer stores them are read from their bytes', async (t) => {
  const lines: Array<[string, number]> = [
    [event(1), 1],
    [event(42, { payload: {} }), 42],
    [event(7, { subject: 'bn-7', message: 'héllo wörld ✓ 𝄞 日本語', payload: { bead: { labels: [] } } }), 7],
    [event(8, { message: 'quote " backslash \\ slash / tab \t nl \n cr \r nul \u0000 bell \u0007' }), 8],
    [event(9, { payload: { lone: '\ud800', pair: '\ud83d\ude00', esc: '\u2028\u2029' } }), 9],
    [event(10, { payload: { n: [0, -0.5, 1e21, 1.5e-7, -12, 123456789012345, true, false, null] } }), 10],
    [event(11, { payload: { deep: [[[{ a: [{}, [], { b: [null] }] }]]], empty: '' } }), 11],
    [event(123_456_789_012_345), 123_456_789_012_345],
    ['{"seq":0}', 0],
    ['{"seq":5}', 5],
    ['{"seq":6,"sequence":1,"seq2":2,"se":3,"Seq":4}', 6],
  ];
  for (const [line, seq] of lines) {
    t.equal(cheap(line), seq, `fast: ${line.slice(0, 60)}`);
    t.equal(parsed(line), seq === 0 ? undefined : seq, 'a full parse agrees');
    t.equal(scanned(line), parsed(line), 'the scan agrees');
  }
  // Escaped by hand, as JSON.stringify never writes them: `\/`, `\u00e9`, upper-case hex, `\b\f`.
  const hand = String.raw`{"seq":12,"m":"a\/b\u00e9\u00E9\b\f\"\\","o":{"k\"ey":1}}`;
  t.equal(cheap(hand), 12);
  t.equal(parsed(hand), 12);
});

t.test('raw bytes that are not UTF-8 inside a string read as a full parse does', async (t) => {
  const line = Buffer.concat([
    Buffer.from('{"seq":3,"m":"'),
    Buffer.from([0xff, 0xc3, 0x28, 0x80]),
    Buffer.from('"}'),
  ]);
  t.equal(cheap(line), 3, 'decoding replaces them, so a parse accepts them too');
  t.equal(parsed(line), 3);
  const outside = Buffer.concat([Buffer.from('{"seq":3,"m":1'), Buffer.from([0xff]), Buffer.from('}')]);
  t.equal(cheap(outside), INCONCLUSIVE);
  t.equal(parsed(outside), undefined);
});

t.test('valid lines in another shape are left to a full parse, which still reads them', async (t) => {
  const lines: Array<[string, number | undefined]> = [
    ['{"type":"x","seq":3}', 3], // seq not first
    ['{"seq":1,"type":"x","seq":4}', 4], // a repeated key: the last one wins
    [String.raw`{"seq":1,"s\u0065q":5}`, 5], // the same key, escaped
    [String.raw`{"seq":1,"k\"ey":5}`, 1], // any escaped top-level key might spell seq
    [String.raw`{"seq":1,"se\q":5}`, undefined], // not an escape at all
    ['{ "seq": 6 }', 6], // whitespace
    ['{"seq":7}\r', 7], // trailing whitespace
    ['{"seq":8, "type":"x"}', 8],
    ['{"seq":1.0}', 1], // not how we write it, but a safe integer once parsed
    ['{"seq":2e0}', 2],
    ['{"seq":1234567890123456}', 1234567890123456], // more digits than the fast path takes
    ['{"seq":9007199254740993}', undefined], // past 2^53
    ['{"seq":-1}', undefined],
    ['{"seq":"9"}', undefined],
    ['{"seq":null}', undefined],
    [`{"seq":10,"deep":${'['.repeat(100)}${']'.repeat(100)}}`, 10], // deeper than the fast path goes
  ];
  for (const [line, seq] of lines) {
    t.equal(cheap(line), INCONCLUSIVE, `inconclusive: ${line.slice(0, 60)}`);
    t.equal(parsed(line), seq, 'a full parse decides');
    t.equal(scanned(line), seq, 'the scan falls back to it');
  }
});

t.test('invalid lines are never read as an event', async (t) => {
  const bad = [
    '',
    'junk',
    '[1]',
    '1',
    'null',
    '"{\\"seq\\":1}"',
    '{"seq":1',
    '{"seq":1,',
    '{"seq":1,}',
    '{"seq":1}}',
    '{"seq":1}x',
    '{"seq":1}{"seq":2}',
    '{"seq":01}',
    '{"seq":1x}',
    '{"seq":3,"ty garbage',
    '{"seq":3,"type":"x"} junk',
    '{"seq":3,"type":"x",}',
    '{"seq":3,"type"}',
    '{"seq":3,"type":}',
    '{"seq":3,type:"x"}',
    "{\"seq\":3,'type':'x'}",
    '{"seq":3,"a":[}]',
    '{"seq":3,"a":{]}',
    '{"seq":3,"a":[1,]}',
    '{"seq":3,"a":[,1]}',
    '{"seq":3,"a":{"b"}}',
    '{"seq":3,"a":{"b":1,}}',
    '{"seq":3,"a":tru}',
    '{"seq":3,"a":nulls}',
    '{"seq":3,"a":True}',
    '{"seq":3,"a":-}',
    '{"seq":3,"a":1.}',
    '{"seq":3,"a":.5}',
    '{"seq":3,"a":1e}',
    '{"seq":3,"a":1e+}',
    '{"seq":3,"a":+1}',
    '{"seq":3,"a":01}',
    '{"seq":3,"a":-01}',
    '{"seq":3,"a":0x10}',
    '{"seq":3,"a":NaN}',
    '{"seq":3,"a":"\\x"}',
    '{"seq":3,"a":"\\u12"}',
    '{"seq":3,"a":"\\u12G4"}',
    '{"seq":3,"a":"\\',
    '{"seq":3,"a":"unterminated}',
    '{"seq":3,"a":"tab\there"}',
    '{"seq":3,"a":"nul\u0000here"}',
    '{"seq":3,"a":"\u001f"}',
    '{"seq":3,"a":"x"\u0000}',
    '{"seq":3,"a":[[[[' + '\u0000'.repeat(8),
    '\u0000'.repeat(40),
  ];
  for (const line of bad) {
    t.equal(cheap(line), INCONCLUSIVE, `fast path refuses ${JSON.stringify(line.slice(0, 50))}`);
    t.equal(scanned(line), undefined, 'and so does the scan');
  }
});

t.test('the fast path needs the line to end at its newline', async (t) => {
  const bytes = Buffer.from('{"seq":1}{"seq":2}\n');
  t.equal(lineSeq(bytes, 0, bytes.length - 1), INCONCLUSIVE);
  t.equal(lineSeq(bytes, 0, 9), INCONCLUSIVE, 'no newline after the range');
  t.equal(lineSeq(Buffer.from('{"seq":1}\n'), 0, 9), 1);
});

/** A small seeded PRNG (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let r = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

t.test(
  'mutated lines: the fast path never accepts what a full parse refuses, nor reads another seq',
  async (t) => {
    const rand = random(20300101);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    // Bytes that matter to the grammar, plus a few ordinary and non-ASCII ones.
    const alphabet = Buffer.from('{}[]:,"\\/-+.0123456789eEtfnlrsuaq \t\r\u0000\u001fxé');
    const seeds = [
      event(17, {
        subject: 'bn-1',
        payload: { bead: { id: 'bn-1', labels: ['a', 'b'], priority: 2, x: null } },
      }),
      event(3, { message: 'é "q" \\ \u0001', payload: { n: [-1.5e3, 0, true, false], o: {} } }),
      String.raw`{"seq":5,"a":"\u00e9\n","b":[{"c":[]},{}],"d":-0.0e-0}`,
    ];
    let accepted = 0;
    let checked = 0;
    for (let n = 0; n < 20_000; n++) {
      const bytes = [...Buffer.from(pick(seeds))];
      for (let edits = 1 + Math.floor(rand() * 3); edits > 0; edits--) {
        const at = Math.floor(rand() * (bytes.length + 1));
        const op = rand();
        if (op < 0.4) bytes[Math.min(at, bytes.length - 1)] = pick([...alphabet]);
        else if (op < 0.7) bytes.splice(at, 0, pick([...alphabet]));
        else if (op < 0.9) bytes.splice(at, 1);
        else bytes.length = Math.min(at, bytes.length);
      }
      const line = Buffer.from(bytes.filter((b) => b !== 0x0a));
      const fast = cheap(line);
      checked++;
      if (fast === INCONCLUSIVE) continue;
      accepted++;
      let value: unknown;
      try {
        value = JSON.parse(line.toString('utf8'));
      } catch {
        t.fail(`accepted an invalid line: ${JSON.stringify(line.toString('utf8'))}`);
        continue;
      }
      if ((value as { seq?: unknown }).seq !== fast) {
        t.fail(`read seq ${fast} from ${JSON.stringify(line.toString('utf8'))}`);
      }
    }
    t.equal(checked, 20_000);
    t.ok(accepted > 1000, `some mutations stay valid and take the fast path (${accepted})`);
  },
);
