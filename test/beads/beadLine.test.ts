import t from 'tap';
import { beadLineOf } from '../../machines/beads/beadLine.ts';
import { beadOf } from '../../machines/beads/evolve.ts';
import { idNumber } from '../../machines/beads/ids.ts';
import { isBeadStateEvent } from '../../machines/beads/events.ts';
import type { JournalEvent } from '../../schemas/event.ts';

/** What the parsed way makes of `line`: its seq, state type and id, or 'damaged'. */
function parsed(line: string) {
  const event = JSON.parse(line) as JournalEvent;
  if (!isBeadStateEvent(event.type)) return { seq: event.seq, type: undefined, id: '', num: -1 };
  try {
    return { seq: event.seq, type: event.type, id: beadOf(event, event.type, 'log').id, num: -1 };
  } catch {
    return 'damaged';
  }
}

const read = (line: string) => {
  const buf = Buffer.from(`${line}\n`);
  const answer = beadLineOf(buf, 0, buf.length - 1);
  return answer && { ...answer };
};

const bead = { id: 'bn-7', title: 't "q" \\ x', status: 'open', labels: ['a', 'b'], metadata: { k: '{[' } };
const line = (event: object) => JSON.stringify(event);
const base = { seq: 12, type: 'bead.updated', ts: 'x', actor: 'a', subject: 'bn-7', payload: { bead } };

t.test(
  'compact lines as the journal writes them are read from their bytes, as the parser reads them',
  async (t) => {
    const created = line({ ...base, type: 'bead.created', payload: { bead: { id: 'bn-7', title: 'x' } } });
    t.same(read(created), { seq: 12, type: 'bead.created', id: 'bn-7', num: -1 });
    for (const type of ['bead.updated', 'bead.closed', 'bead.deleted']) {
      const text = line({ ...base, type });
      t.same(read(text), parsed(text), type);
      t.equal(read(text)?.id, 'bn-7');
    }
    for (const text of [
      line({ ...base, type: 'session.woke', payload: { anything: [1, { a: '}' }] } }),
      line({ ...base, type: 'bead.claim_rejected', payload: {} }),
      line({ seq: 3, type: 'x' }),
    ]) {
      t.same(read(text), parsed(text), text);
    }
    t.same(read(line({ ...base, payload: { bead: { ...bead, issue_type: 'bug' } } })), {
      seq: 12,
      type: 'bead.updated',
      id: 'bn-7',
      num: -1,
    });
  },
);

t.test('whatever the bytes cannot settle exactly is left to the parser', async (t) => {
  const cases = [
    // A create with metadata (an idempotency key, maybe) needs the whole bead.
    line({ ...base, type: 'bead.created' }),
    line({ ...base, type: 'bead.created', payload: { bead: { id: 'bn-7', metadata: {} } } }),
    // Damaged: no id, an id that is not a string, no bead, extra payload keys, a bad issue_type.
    line({ ...base, payload: { bead: { title: 'no id' } } }),
    line({ ...base, payload: { bead: { id: 7 } } }),
    line({ ...base, payload: {} }),
    line({ ...base, payload: { bead, extra: 1 } }),
    line({ ...base, payload: { bead: { ...bead, issue_type: 3 } } }),
    line({ ...base, payload: 'text' }),
    line({ ...base, payload: null }),
    line({ seq: 12, type: 'bead.updated', ts: 'x', actor: 'a' }),
    // Escapes, whitespace, repeated keys, odd numbers, non-ASCII ids.
    '{"seq":12,"type":"bead.upd\\u0061ted","payload":{"bead":{"id":"bn-7"}}}',
    '{"seq":12,"type":"bead.updated","payload":{"bead":{"id":"bn-\\u0037"}}}',
    '{"seq":12,"type":"bead.updated","payload":{"bead":{"i\\u0064":"bn-7"}}}',
    '{"seq":12, "type":"bead.updated","payload":{"bead":{"id":"bn-7"}}}',
    '{"seq":12,"type":"bead.updated","payload":{"bead":{"id":"bn-7"} }}',
    '{"seq":12,"type":"bead.updated","payload":{"bead":{"id":"bn-7","id":"bn-8"}}}',
    '{"seq":12,"type":"bead.updated","payload":{"bead":{"id":"bn-7"},"bead":{"id":"bn-8"}}}',
    '{"seq":12,"type":"bead.updated","payload":{"bead":{"id":"bn-7"}},"payload":{"bead":{}}}',
    '{"seq":12,"seq":13,"type":"bead.updated","payload":{"bead":{"id":"bn-7"}}}',
    '{"seq":12,"type":"session.woke","type":"bead.updated","payload":{"bead":{"id":"bn-7"}}}',
    '{"seq":12.0,"type":"bead.updated","payload":{"bead":{"id":"bn-7"}}}',
    '{"seq":1e2,"type":"bead.updated","payload":{"bead":{"id":"bn-7"}}}',
    '{"seq":12,"type":"bead.updated","payload":{"bead":{"id":"bé-7"}}}',
  ];
  for (const text of cases) t.equal(read(text), undefined, text);
});

t.test('an answer from the bytes always agrees with the parser, over random events', async (t) => {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const values = ['s', '\\"', '}', ']', '{', 1, -2.5e3, true, null, [], {}, ['}', { a: '"' }], 'é'];
  let fromBytes = 0;
  for (let i = 0; i < 2000; i++) {
    const b: Record<string, unknown> = {};
    for (const k of ['title', 'id', 'issue_type', 'labels', 'metadata', 'x'])
      if (rand() < 0.6) b[k] = pick(values);
    if (rand() < 0.6) b.id = `bn-${i}`;
    if (rand() < 0.5) b.issue_type = 'task';
    const payload = rand() < 0.9 ? { bead: rand() < 0.9 ? b : pick(values) } : pick(values);
    const type = pick(['bead.updated', 'bead.closed', 'bead.deleted', 'bead.created', 'mail.sent']);
    const text = line({ seq: i + 1, type, ts: 't', actor: pick(values), payload });
    const answer = read(text);
    if (answer === undefined) continue;
    fromBytes++;
    t.same(answer, parsed(text), text);
  }
  t.ok(fromBytes > 300, `${fromBytes} of 2000 read from their bytes`);
});

t.test(
  "an id of the store's <prefix>-<n> form comes back as its number, exactly as idNumber reads it",
  async (t) => {
    const prefix = new Uint8Array(Buffer.from('bn', 'latin1'));
    const ids = [
      'bn-7',
      'bn-123456789012345',
      'bn-1234567890123456',
      'bn-07',
      'bn-0',
      'bn-',
      'bn-7x',
      'bn7',
      'b-7',
    ];
    for (const id of [...ids, 'zz-7', 'bnn-7', 'bn--7', 'BN-7', 'bn-1e3']) {
      const buf = Buffer.from(`${line({ ...base, payload: { bead: { id, title: 'x' } } })}\n`);
      const answer = beadLineOf(buf, 0, buf.length - 1, prefix);
      const n = idNumber(id, 'bn');
      t.same(
        answer && { ...answer },
        { seq: 12, type: 'bead.updated', id: n === undefined ? id : '', num: n ?? -1 },
        id,
      );
    }
  },
);
