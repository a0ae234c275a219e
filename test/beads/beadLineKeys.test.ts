/**
 * The line codec (machines/beads/beadLine.ts) over keys JSON.stringify writes that beadLineAnswers' lines
 * never hold: keys with escapes at every level, keys that extend or shorten the codec's own (`idx`, `seqs`,
 * `beads`…), keys that begin with `:` or `,`, empty strings where an object is read; and ids read against
 * the store's prefix. Each line sits after another line (or at the buffer's start), since the codec must
 * read only its own bytes. An oracle decides from the event what the codec answers, exactly.
 */
import t from 'tap';
import { beadLineOf } from '../../machines/beads/beadLine.ts';
import { idNumber } from '../../machines/beads/ids.ts';
import { pick, prng, type Rand } from '../helpers/prng.ts';

const SEED = Number(process.env.LINE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const PREFIX = 'bn';
const KEYS = ['a"b', 'back\\', 'nl\n', ':', ',', ':x', ',"', '', 'é', 'x'];
const TOP_KEYS = [...KEYS, 'seqs', 'se', 'types', 'typ', 'payloads', 'pay'];
const PAYLOAD_KEYS = [...KEYS, 'beads', 'bea', 'id'];
const BEAD_KEYS = [...KEYS, 'idx', 'i', 'issue_types', 'issue', 'metadatas', 'meta', 'bead'];
const VALUES: readonly unknown[] = [
  '',
  [''],
  ['', ':'],
  ':',
  ',"',
  'bn-1',
  0,
  3,
  null,
  true,
  {},
  { id: 'bn-2' },
];
const IDS = [
  'bn-7',
  'bn-70',
  'bnx7',
  'bn-07',
  'bn-0',
  'bn-',
  'bo-7',
  'b-7',
  'bn-7x',
  'bn-1234567890123456',
  'x',
];
const TYPES = ['bead.created', 'bead.updated', 'bead.closed', 'bead.deleted', 'bead.x', 'mail.sent'];
const STATE = new Set(TYPES.slice(0, 4));
/** The lines before the one read: none, another event, and the shortest object. */
const BEFORE = ['', '{"junk":1}\n', '{}\n'];

const noEscapes = (s: string) => JSON.stringify(s) === `"${s}"`;
const plainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function withExtra(rand: Rand, base: Record<string, unknown>, keys: readonly string[]) {
  const out = { ...base };
  const n = Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) {
    const key = pick(rand, keys);
    if (!(key in out)) out[key] = pick(rand, VALUES);
  }
  const order = Object.keys(out).sort(() => rand() - 0.5);
  return Object.fromEntries(order.map((k) => [k, out[k]]));
}

function randomEvent(rand: Rand): Record<string, unknown> {
  const bead: Record<string, unknown> = { title: 't' };
  if (rand() < 0.9) bead.id = pick(rand, IDS);
  if (rand() < 0.2) bead.issue_type = 'task';
  const roll = rand();
  const beadValue = roll < 0.8 ? withExtra(rand, bead, BEAD_KEYS) : pick(rand, VALUES);
  const payload = rand() < 0.6 ? { bead: beadValue } : withExtra(rand, { bead: beadValue }, PAYLOAD_KEYS);
  const event = { seq: 1 + Math.floor(rand() * 1000), type: pick(rand, TYPES), payload };
  return rand() < 0.5 ? event : withExtra(rand, event, TOP_KEYS);
}

/** What the codec answers for `event`, from its contract. */
function expected(event: Record<string, unknown>) {
  const keysPlain = (o: object) => Object.keys(o).every(noEscapes);
  if (!keysPlain(event)) return undefined;
  const seq = event.seq as number;
  const type = event.type as string;
  if (!STATE.has(type)) return { seq, type: undefined, id: '', num: -1 };
  const payload = event.payload as Record<string, unknown>;
  if (!keysPlain(payload) || Object.keys(payload).join() !== 'bead') return undefined;
  const bead = payload.bead;
  if (!plainObject(bead) || !keysPlain(bead) || typeof bead.id !== 'string') return undefined;
  if (type === 'bead.created' && 'metadata' in bead) return undefined;
  const num = idNumber(bead.id, PREFIX);
  return num === undefined ? { seq, type, id: bead.id, num: -1 } : { seq, type, id: '', num };
}

const prefix = new Uint8Array(Buffer.from(PREFIX, 'latin1'));
const read = (before: string, text: string, after = '\n') => {
  const buf = Buffer.from(`${before}${text}${after}`);
  const start = Buffer.byteLength(before);
  const got = beadLineOf(buf, start, start + Buffer.byteLength(text), prefix);
  return got && { ...got };
};

t.test(`keys of every kind, at every level, after every kind of line (LINE_SEED=${SEED})`, async (t) => {
  const rand = prng(SEED);
  let answered = 0;
  for (let i = 0; i < 20_000; i++) {
    const event = randomEvent(rand);
    const text = JSON.stringify(event);
    const before = pick(rand, BEFORE);
    const got = read(before, text);
    const want = expected(event);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      t.same(got, want, `after ${JSON.stringify(before)}: ${text}`);
      return;
    }
    if (got) answered++;
  }
  t.ok(answered > 5_000, `${answered} of 20,000 lines answered from their bytes`);
});

t.test('each kind of key, on its own', async (t) => {
  const line = (payload: unknown, extra: object = {}, type = 'bead.updated') =>
    JSON.stringify({ seq: 5, type, ...extra, payload });
  const updated = (id: string, num = -1) => ({ seq: 5, type: 'bead.updated', id, num });
  const notice = { seq: 5, type: undefined, id: '', num: -1 };
  for (const before of BEFORE) {
    const at = `after ${JSON.stringify(before)}`;
    t.same(read(before, line({ bead: { id: 'bnx7', idx: 'q' } })), updated('bnx7'), `${at}: idx is not id`);
    t.same(read(before, line({ bead: { i: 1, id: 'bo-7' } })), updated('bo-7'), `${at}: nor is i`);
    t.same(read(before, line({ bead: { id: 'bn-7' } }, { seqs: 9, types: 'x' })), updated('', 7), at);
    t.equal(read(before, line({ x: { id: 'bn-1' } })), undefined, `${at}: an object beside no bead`);
    t.equal(read(before, line({ bead: { id: 'bn-1' }, beads: 1 })), undefined, `${at}: beads beside bead`);
    t.same(read(before, line({ 'a"b': 1 }, {}, 'mail.sent')), notice, `${at}: an escaped payload key`);
    t.same(read(before, line({ bead: { 'a"b': 1 } }, {}, 'bead.x')), notice, `${at}: in a notice's bead`);
    t.equal(read(before, line({ bead: { id: 'bn-1', 'a"b': 1 } })), undefined, `${at}: in a state bead`);
    t.equal(read(before, line({ bead: { id: 'bn-1' } }, { 'a"b': 1 })), undefined, `${at}: at the top`);
    t.same(read(before, line({ bead: '', ':id': 'bn-1' }, {}, 'mail.sent')), notice, `${at}: '' as the bead`);
    t.equal(read(before, line({ bead: '', ':id': 'bn-1' })), undefined, `${at}: '' is no state bead`);
    t.equal(read(before, line({ bead: [''], ':': 'x' })), undefined, `${at}: nor [''] `);
    const odd = { bead: { id: 'x', issue_type: null }, 'a"b': 1 };
    t.same(read(before, line(odd, {}, 'mail.sent')), notice, `${at}: a notice whose bead walk fails`);
  }
  const ids: [string, string, number][] = [
    ['bn-7', '', 7],
    ['bn-123456789012345', '', 123456789012345],
    ['bn-1234567890123456', 'bn-1234567890123456', -1],
    ['bnx7', 'bnx7', -1],
    ['bo-7', 'bo-7', -1],
    ['bn-07', 'bn-07', -1],
    ['bn-', 'bn-', -1],
    ['bn-7x', 'bn-7x', -1],
  ];
  for (const [id, asText, num] of ids)
    t.same(
      read('', line({ bead: { id } })),
      updated(asText, num),
      `the id ${id} against the prefix ${PREFIX}`,
    );
});
