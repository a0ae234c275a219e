/**
 * Mail as the store reads it (machines/beads/mailQueries.ts, mailView.ts): a message bead on the wire,
 * reply titles, mailbox pages by recipient, rig and read state, the counts, and threads with their
 * archived messages, oldest first. Expected values worked out by hand.
 */
import t from 'tap';
import type { StoredBead } from '../../machines/beads/index.ts';
import { countMail, listMail, mailThread } from '../../machines/beads/mailQueries.ts';
import { isMessage, replyTitle, toMessage } from '../../machines/beads/mailView.ts';
import type { Message } from '../../schemas/mail.ts';
import { beadCity, CITY_NOW } from '../helpers/beadCity.ts';

const bead = (extra: Partial<StoredBead>): StoredBead => ({
  id: 'm-1',
  title: 'Hi',
  status: 'open',
  issue_type: 'message',
  created_at: CITY_NOW,
  ...extra,
});

t.test('a message bead on the wire', async (t) => {
  t.same(toMessage(bead({})), {
    id: 'm-1',
    from: '',
    to: '',
    subject: 'Hi',
    body: '',
    created_at: CITY_NOW,
    read: false,
  });
  t.same(
    toMessage(
      bead({
        from: 'ann',
        assignee: 'mayor',
        description: 'hello',
        labels: ['read', 'thread:t-1', 'reply-to:m-0', 'priority:2', 'cc:bob', 'cc:cy', 'other'],
        metadata: { 'gc.rig': 'app' },
      }),
    ),
    {
      id: 'm-1',
      from: 'ann',
      to: 'mayor',
      subject: 'Hi',
      body: 'hello',
      created_at: CITY_NOW,
      read: true,
      thread_id: 't-1',
      reply_to: 'm-0',
      rig: 'app',
      priority: 2,
      cc: ['bob', 'cy'],
    },
  );
  t.notOk(
    'priority' in toMessage(bead({ labels: ['priority:high'] })),
    'a priority that is no integer is left out',
  );
  t.equal(isMessage(bead({})), true);
  t.equal(isMessage(bead({ issue_type: 'task' })), false);
  t.equal(isMessage(undefined), false);
});

t.test(
  'reply titles: the subject, else Re: the original once, else the body’s first line, else (reply)',
  async (t) => {
    t.equal(replyTitle('Own', 'Plan', 'b'), 'Own');
    t.equal(replyTitle(undefined, 'Plan', 'b'), 'Re: Plan');
    t.equal(replyTitle('', 'RE: Plan', 'b'), 'RE: Plan', 'not doubled, whatever its case');
    t.equal(replyTitle(undefined, '  re:Plan', 'b'), '  re:Plan');
    t.equal(replyTitle(undefined, '', 'first\nsecond'), 'first');
    t.equal(replyTitle(undefined, '', 'x'.repeat(80)), 'x'.repeat(80), '80 characters fit');
    t.equal(replyTitle(undefined, '', 'x'.repeat(81)), `${'x'.repeat(77)}...`);
    t.equal(replyTitle(undefined, '', ''), '(reply)');
    t.equal(replyTitle(undefined, '', undefined), '(reply)');
    t.equal(replyTitle(undefined, '', '\nsecond'), '(reply)', 'an empty first line');
  },
);

function mailCity() {
  const city = beadCity('mb');
  const send = (to: string, subject: string, rig?: string) =>
    (
      city.run({ type: 'SendMail', input: { to, from: 'ann', subject, ...(rig ? { rig } : {}) } }) as {
        message: Message;
      }
    ).message.id;
  const m1 = send('mayor', 'one', 'app');
  const m2 = send('mayor', 'two');
  const m3 = send('bob', 'three', 'app');
  const m4 = send('mayor', 'four', 'app');
  city.run({ type: 'MarkMailRead', id: m2 });
  city.run({ type: 'ArchiveMail', id: m4 });
  city.create({ title: 'a task', assignee: 'mayor' });
  return { city, m1, m2, m3, m4 };
}

t.test(
  'mailbox pages: open messages only, unread by default, by recipient and rig, newest first',
  async (t) => {
    const { city, m1, m2, m3 } = mailCity();
    const ids = (filter: Parameters<typeof listMail>[1], size = 10) =>
      listMail(city.model, filter, size).items.map((m) => m.id);
    t.same(ids({}), [m3, m1], 'unread, every recipient');
    t.same(ids({ status: 'all' }), [m3, m2, m1]);
    t.same(ids({ agent: 'mayor', status: 'all' }), [m2, m1]);
    t.same(ids({ rig: 'app', status: 'all' }), [m3, m1]);
    t.same(ids({ agent: 'mayor', rig: 'app' }), [m1]);
    t.same(ids({ agent: 'nobody' }), []);
    t.same(ids({ rig: 'nowhere' }), []);
    const page = listMail(city.model, { status: 'all' }, 2);
    t.equal(page.total, 3);
    t.ok(page.nextCursor, 'a cursor to the rest');
  },
);

t.test('counts: open messages and the unread among them', async (t) => {
  const { city } = mailCity();
  t.same(countMail(city.model, {}), { total: 3, unread: 2 });
  t.same(countMail(city.model, { agent: 'mayor' }), { total: 2, unread: 1 });
  t.same(countMail(city.model, { rig: 'app' }), { total: 2, unread: 2 });
  t.same(countMail(city.model, { agent: 'bob', rig: 'none' }), { total: 0, unread: 0 });
});

t.test(
  'a thread: every message in it, archived ones too, oldest first, by thread or message id',
  async (t) => {
    const city = beadCity('th');
    const first = (
      city.run({ type: 'SendMail', input: { to: 'mayor', from: 'ann', subject: 's', rig: 'app' } }) as {
        message: Message;
      }
    ).message;
    const reply = (
      city.run({ type: 'ReplyMail', id: first.id, input: { from: 'mayor', body: 'ok' } }) as {
        message: Message;
      }
    ).message;
    city.run({ type: 'ArchiveMail', id: first.id });
    city.run({ type: 'SendMail', input: { to: 'mayor', from: 'ann', subject: 'other thread' } });
    const thread = first.thread_id!;
    t.same(
      mailThread(city.model, thread).map((m) => m.id),
      [first.id, reply.id],
    );
    t.same(
      mailThread(city.model, reply.id).map((m) => m.id),
      [first.id, reply.id],
      'by the id of a message in it',
    );
    t.same(mailThread(city.model, thread, 'app').length, 2, 'in its rig');
    t.same(mailThread(city.model, thread, 'other'), [], 'not in another rig');
    t.same(mailThread(city.model, 'no-such-thread'), []);
    const task = city.create({ title: 'task', labels: [`thread:${thread}`] });
    t.notOk(
      mailThread(city.model, thread).some((m) => m.id === task),
      'a bead that is no message is not in the thread',
    );
  },
);
