import t from 'tap';
import { captureCursor, cursorOfHeads, parseCursor } from '../../actors/runtime/cursor.ts';
import { compareBytewise, formatCursor } from '../../schemas/compositeCursor.ts';
import { BadRequestError } from '../../actors/runtime/errors.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { parseGoDuration } from '../../http/goDuration.ts';
import { decodePageToken, encodePageToken } from '../../http/events/pageToken.ts';
import { cityResume, supervisorResume } from '../../http/events/resume.ts';
import { heartbeatTimestamp } from '../../http/sse/writer.ts';
import { CursorTracker } from '../../actors/runtime/feed/cursorTracker.ts';

t.test('formats pairs sorted bytewise with zero entries kept; parses them back', async (t) => {
  const cases: Array<[Array<[string, number]>, string]> = [
    [
      [
        ['beta', 9],
        ['mc-city', 21],
        ['alpha', 4],
      ],
      'alpha:4,beta:9,mc-city:21',
    ],
    [
      [
        ['my-city', 17],
        ['__supervisor__', 42],
      ],
      '__supervisor__:42,my-city:17',
    ],
    [
      [
        ['Zed', 1],
        ['_x', 2],
        ['a', 0],
        ['9', 3],
      ],
      '9:3,Zed:1,_x:2,a:0',
    ],
    [
      [
        ['host:8080', 3],
        ['a', 1],
      ],
      'a:1,host:8080:3',
    ],
    [[], ''],
  ];
  for (const [pairs, text] of cases) {
    t.equal(formatCursor(new Map(pairs)), text);
    if (text) t.same(parseCursor(text), new Map(pairs), `round trip ${text}`);
  }
});

t.test('splits each pair on its last colon, so names may contain colons', async (t) => {
  t.same(parseCursor('ns:city:7'), new Map([['ns:city', 7]]));
});

t.test('the literal 0 is the empty cursor (replay everything)', async (t) => {
  t.same(parseCursor('0'), new Map());
});

t.test('refuses malformed cursors with a 400 instead of replaying from zero', async (t) => {
  for (const bad of [
    '',
    'garbage',
    'a:',
    ':1',
    'a:x',
    'a:-1',
    'a:1.5',
    'a:12abc',
    'a:1,',
    ',a:1',
    'a:1,a:2',
    'a:99999999999999999',
  ]) {
    t.throws(() => parseCursor(bad, 'after_cursor'), BadRequestError, JSON.stringify(bad));
  }
  t.throws(() => parseCursor('x'), { message: /^cursor is not a valid event cursor/ });
});

t.test('orders names by UTF-8 bytes, not UTF-16 units', async (t) => {
  const astral = '\u{1F600}'; // U+1F600: UTF-16 starts with 0xD83D, below U+FFFD
  t.ok(compareBytewise('\uFFFD', astral) < 0, 'U+FFFD sorts before U+1F600 in UTF-8');
  t.ok('\uFFFD' > astral, 'whereas JS string comparison says the opposite');
  t.equal(
    formatCursor(
      new Map([
        [astral, 1],
        ['\uFFFD', 2],
      ]),
    ),
    `\uFFFD:2,${astral}:1`,
  );
});

t.test('a name that is a prefix of another sorts first (a before ab), as Go sorts strings', async (t) => {
  t.ok(compareBytewise('a', 'ab') < 0, 'a < ab');
  t.ok(compareBytewise('ab', 'a') > 0, 'ab > a');
  t.equal(compareBytewise('ab', 'ab'), 0);
  t.equal(
    formatCursor(
      new Map([
        ['ab', 1],
        ['a', 2],
        ['abc', 3],
      ]),
    ),
    'a:2,ab:1,abc:3',
  );
  const tracker = new CursorTracker(new Map([['city-2', 5]]));
  tracker.set('city', 1);
  tracker.set('city-22', 7);
  t.equal(tracker.format(), 'city:1,city-2:5,city-22:7', 'the stream tracker keeps the same order');
});

t.test('compareBytewise agrees with a comparison of the UTF-8 bytes, for random names', async (t) => {
  // The oracle: Buffer.compare over the UTF-8 encoding is Go's order by definition. Names are drawn from a
  // small alphabet (ASCII, a BMP letter, U+FFFD and an astral character) so prefixes and ties are common.
  const alphabet = ['a', 'b', '-', ':', '_', 'Z', '\u00e9', '\uFFFD', '\u{1F600}'];
  let seed = 12345;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const name = () =>
    Array.from({ length: Math.floor(rand() * 4) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(
      '',
    );
  const wrong: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const [a, b] = [name(), name()];
    const want = Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
    if (Math.sign(compareBytewise(a, b)) !== want) wrong.push(`${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
  t.same(wrong.slice(0, 10), [], 'every pair ordered as its bytes');
});

t.test('captureCursor keeps logs with events and says 0 when every log is empty', async (t) => {
  const sup = new MemoryJournal('__supervisor__');
  const alpha = new MemoryJournal('alpha');
  const logs = new Map([
    ['__supervisor__', sup],
    ['alpha', alpha],
  ]);
  t.equal(await captureCursor(logs), '0');
  await sup.append({ type: 'x', actor: 'y' });
  t.equal(await captureCursor(logs), '__supervisor__:1', 'as upstream: only the supervisor log has an event');
  await alpha.append({ type: 'x', actor: 'y' });
  t.equal(await captureCursor(logs), '__supervisor__:1,alpha:1');
  t.equal(cursorOfHeads(new Map([['b', 0]])), '0');
});

t.test('the stream cursor tracker adds names in sorted place and formats the whole map', async (t) => {
  const tracker = new CursorTracker(new Map([['beta', 2]]));
  tracker.set('alpha', 0);
  tracker.set('__supervisor__', 5);
  tracker.set('beta', 3);
  t.equal(tracker.format(), '__supervisor__:5,alpha:0,beta:3');
});

t.test('resume values: header first, blank is absent, malformed is a 400', async (t) => {
  t.equal(cityResume(undefined, undefined), undefined);
  t.equal(cityResume('  ', ''), undefined);
  t.equal(cityResume('7', '3'), 7);
  t.equal(cityResume(undefined, '3'), 3);
  t.equal(cityResume(['9', '1'], undefined), 9);
  t.throws(() => cityResume('x', undefined), { message: /^Last-Event-ID must be a non-negative integer/ });
  t.throws(() => cityResume(undefined, '3a'), { message: /^after_seq must be a non-negative integer/ });
  t.same(supervisorResume(' a:1 ', 'b:2'), new Map([['a', 1]]));
  t.same(supervisorResume(undefined, '0'), new Map());
  t.equal(supervisorResume('', ''), undefined);
});

t.test('Go durations parse as time.ParseDuration does, with its error messages', async (t) => {
  const ok: Array<[string, number]> = [
    ['0', 0],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['.5s', 500],
    ['250ms', 250],
    ['-2s', -2000],
    ['+3s', 3000],
    ['100us', 0.1],
    ['1µs', 0.001],
    ['2ns', 2e-6],
  ];
  for (const [text, ms] of ok) t.equal(parseGoDuration(text), ms, text);
  t.throws(() => parseGoDuration(''), { message: 'time: invalid duration ""' });
  t.throws(() => parseGoDuration('5'), { message: 'time: missing unit in duration "5"' });
  t.throws(() => parseGoDuration('5d'), { message: 'time: unknown unit "d" in duration "5d"' });
  t.throws(() => parseGoDuration('abc'), { message: 'time: invalid duration "abc"' });
  t.throws(() => parseGoDuration('.s'), { message: 'time: invalid duration ".s"' });
  t.throws(() => parseGoDuration('999999999h'), { message: 'time: invalid duration "999999999h"' });
});

t.test('page tokens round-trip and refuse anything they did not make', async (t) => {
  t.equal(decodePageToken(encodePageToken(42)), 42);
  t.not(encodePageToken(42), '42', 'opaque');
  for (const bad of [
    '',
    '42',
    'ZXYx',
    Buffer.from('ev1.').toString('base64url'),
    Buffer.from('ev1.01').toString('base64url'),
  ]) {
    t.throws(() => decodePageToken(bad), {
      message: 'cursor is not a valid pagination token; re-fetch the first page',
    });
  }
});

t.test('heartbeat timestamps are RFC 3339 UTC with whole seconds', async (t) => {
  t.equal(heartbeatTimestamp(new Date('2026-06-21T10:00:15.123Z')), '2026-06-21T10:00:15Z');
});
