/**
 * When the line codec (machines/beads/beadLine.ts) answers from a line's bytes, and when it leaves the line to
 * the parser, over random compact lines as the journal writes them (JSON.stringify): an oracle decides from
 * the event itself, as the codec's contract says. Answering matters as much as agreeing: a replay of a large
 * log parses every line the codec gives up on.
 */
import t from 'tap';
import { beadLineOf } from '../../machines/beads/beadLine.ts';
import { beadOf } from '../../machines/beads/evolve.ts';
import { isBeadStateEvent } from '../../machines/beads/events.ts';
import type { JournalEvent } from '../../schemas/event.ts';

/** mulberry32, seeded so a failing run replays with LINE_SEED. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}
const SEED = Number(process.env.LINE_SEED ?? Math.floor(Math.random() * 2 ** 31));
type Rand = () => number;
const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

/** Values of every JSON kind, strings with escapes and brackets, nested containers. */
const VALUES: readonly unknown[] = [
  's',
  '',
  'a "quoted" \\ value',
  '}',
  ']',
  '{[',
  'é',
  'line\nbreak',
  0,
  7,
  -2.5e3,
  1e21,
  true,
  false,
  null,
  [],
  {},
  [1, 'x', null, [true]],
  { a: '"', b: [{ c: '}' }], d: -1 },
];
const IDS = ['bn-7', 'bn-123', 'x', '', 'a"b', 'back\\slash', 'bé-7', 'tab\there', 'bn-0'];
const TYPES = [
  'bead.created',
  'bead.updated',
  'bead.closed',
  'bead.deleted',
  'bead.claim_rejected',
  'bead.',
  'bead',
  'beads.updated',
  'mail.sent',
  'session.woke',
  'bead.up"dated',
  'é',
];
const STATE = new Set(['bead.created', 'bead.updated', 'bead.closed', 'bead.deleted']);

const plainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** A string JSON.stringify writes without an escape (and one that is also ASCII). */
const noEscapes = (s: string) => JSON.stringify(s) === `"${s}"`;
const plainAscii = (s: string) => noEscapes(s) && /^[\x20-\x7e]*$/.test(s);

function randomEvent(rand: Rand): Record<string, unknown> {
  const type = pick(rand, TYPES);
  const bead: Record<string, unknown> = {};
  for (const key of ['title', 'status', 'labels', 'priority', 'x'])
    if (rand() < 0.5) bead[key] = pick(rand, VALUES);
  if (rand() < 0.85) bead.id = rand() < 0.8 ? pick(rand, IDS) : pick(rand, VALUES);
  if (rand() < 0.4) bead.issue_type = rand() < 0.8 ? 'task' : pick(rand, VALUES);
  if (rand() < 0.3) bead.metadata = rand() < 0.8 ? { k: pick(rand, VALUES) } : pick(rand, VALUES);
  const keys = Object.keys(bead).sort(() => rand() - 0.5);
  const shuffled = Object.fromEntries(keys.map((k) => [k, bead[k]]));
  const roll = rand();
  const payload =
    roll < 0.7
      ? { bead: shuffled }
      : roll < 0.8
        ? { bead: shuffled, [pick(rand, ['extra', 'beads'])]: pick(rand, VALUES) }
        : roll < 0.85
          ? { other: 1, bead: shuffled }
          : roll < 0.9
            ? { bead: pick(rand, VALUES) }
            : pick(rand, VALUES);
  const seqRoll = rand();
  const seq =
    seqRoll < 0.85
      ? 1 + Math.floor(rand() * 1e6)
      : pick(rand, [0, 10, 999_999_999_999_999, 1_000_000_000_000_000, 1.5, -3, '12', null]);
  const event: Record<string, unknown> = { seq, type, ts: '2026-01-01T00:00:00Z', actor: pick(rand, VALUES) };
  if (rand() < 0.9) event.payload = payload;
  if (rand() < 0.4) event[pick(rand, ['subject', 'n', 'flag', 'list'])] = pick(rand, VALUES);
  if (rand() < 0.05) delete event.seq;
  if (rand() < 0.05) delete event.type;
  const order = Object.keys(event).sort(() => rand() - 0.5);
  return Object.fromEntries(order.map((k) => [k, event[k]]));
}

/** Whether the codec must answer for `event` written compactly, from its contract. */
function mustAnswer(event: Record<string, unknown>): boolean {
  const { seq, type } = event;
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0 || String(seq).length > 15) return false;
  if (typeof type !== 'string' || !noEscapes(type)) return false;
  if (!STATE.has(type)) return true;
  const payload = event.payload;
  if (!plainObject(payload) || Object.keys(payload).join() !== 'bead') return false;
  const bead = payload.bead;
  if (!plainObject(bead) || typeof bead.id !== 'string' || !plainAscii(bead.id)) return false;
  if ('issue_type' in bead && typeof bead.issue_type !== 'string') return false;
  return !(type === 'bead.created' && 'metadata' in bead);
}

/** What the parsed way makes of `text`: seq, state type and id. */
function parsed(text: string) {
  const event = JSON.parse(text) as JournalEvent;
  if (!isBeadStateEvent(event.type)) return { seq: event.seq, type: undefined, id: '', num: -1 };
  return { seq: event.seq, type: event.type, id: beadOf(event, event.type, 'log').id, num: -1 };
}

t.test(`the codec answers exactly for the lines its contract settles (LINE_SEED=${SEED})`, async (t) => {
  const rand = prng(SEED);
  let answered = 0;
  for (let i = 0; i < 20_000; i++) {
    const event = randomEvent(rand);
    const text = JSON.stringify(event);
    // Placed mid-buffer, so the codec reads only [start, end).
    const buf = Buffer.from(`{"junk":1}\n${text}\n{"more"`);
    const start = 11;
    const end = start + Buffer.byteLength(text);
    const got = beadLineOf(buf, start, end);
    const want = mustAnswer(event) ? parsed(text) : undefined;
    const same = JSON.stringify(got && { ...got }) === JSON.stringify(want);
    if (!same) {
      t.same(got && { ...got }, want, text);
      return;
    }
    if (got) answered++;
  }
  t.ok(answered > 5_000, `${answered} of 20,000 lines answered from their bytes`);
});

t.test('a line cut short anywhere is left to the parser', async (t) => {
  const text = JSON.stringify({
    seq: 12,
    type: 'bead.updated',
    n: -1.5,
    payload: { bead: { id: 'bn-7', labels: ['a', '}'], priority: 2, ok: true, nothing: null } },
    z: false,
  });
  const buf = Buffer.from(text);
  t.same({ ...beadLineOf(buf, 0, buf.length)! }, { seq: 12, type: 'bead.updated', id: 'bn-7', num: -1 });
  for (let end = 0; end < buf.length; end++) t.equal(beadLineOf(buf, 0, end), undefined, `cut at ${end}`);
});
