/**
 * The mail deciders (machines/beads/decideMail.ts) on a bead city: the message bead a send makes, a reply
 * in its original's thread and rig, keyed sends and their retries, and the read, unread, archive and
 * delete changes with their notices, each once. Expected values worked out from the contract by hand.
 */
import t from 'tap';
import type { Message } from '../../schemas/mail.ts';
import { beadCity, CITY_NOW } from '../helpers/beadCity.ts';

const refusal = (out: { ok: boolean; rejection?: unknown }) => (out.ok ? 'accepted' : out.rejection);
type Sent = { message: Message; replayed: boolean };

t.test(
  'a send is an open, ephemeral message bead on a thread of its own, written as its sender',
  async (t) => {
    const city = beadCity('ml', 'supervisor');
    const sent = city.run({
      type: 'SendMail',
      input: { to: 'mayor', from: 'ann', subject: 'Hi', body: 'hello', rig: 'app' },
    }) as Sent;
    t.equal(sent.replayed, false);
    const id = sent.message.id;
    t.match(city.model.beads.get(id)!.bead, {
      title: 'Hi',
      status: 'open',
      issue_type: 'message',
      description: 'hello',
      assignee: 'mayor',
      from: 'ann',
      ephemeral: true,
      created_at: CITY_NOW,
      labels: [`thread:thread-${id}`],
      metadata: { 'gc.rig': 'app' },
    });
    t.same(
      city.written.map((e) => [e.type, e.actor, e.subject, e.message]),
      [
        ['bead.created', 'ann', id, 'Hi'],
        ['mail.sent', 'ann', id, 'mayor'],
      ],
    );
    t.match(city.written[1]!.payload, { rig: 'app', message: { id, to: 'mayor', from: 'ann' } });
    const anonymous = city.run({ type: 'SendMail', input: { to: 'mayor', subject: 'No sender' } }) as Sent;
    t.equal(city.written.at(-1)!.actor, 'supervisor', 'no sender: the asking actor');
    t.equal(city.model.beads.get(anonymous.message.id)!.bead.description ?? '', '', 'no body: empty');
    t.same(
      city.model.beads.get(anonymous.message.id)!.bead.metadata ?? {},
      {},
      'no rig, no key: no metadata',
    );
  },
);

t.test(
  'a keyed send: recorded with its key, a retry answers the first, another body is refused',
  async (t) => {
    const city = beadCity('ml');
    const idempotency = { key: 'mail:k1', hash: 'h1' };
    const first = city.run({
      type: 'SendMail',
      input: { to: 'm', from: 'ann', subject: 's' },
      idempotency,
    }) as Sent;
    t.match(city.model.beads.get(first.message.id)!.bead.metadata, {
      'gc.idempotency_key': 'mail:k1',
      'gc.request_sha256': 'h1',
    });
    const written = city.written.length;
    const again = city.run({
      type: 'SendMail',
      input: { to: 'm', from: 'ann', subject: 's' },
      idempotency,
    }) as Sent;
    t.same(again, { message: first.message, replayed: true });
    t.equal(city.written.length, written, 'nothing written');
    t.same(
      refusal(
        city.attempt({
          type: 'SendMail',
          input: { to: 'm', subject: 'x' },
          idempotency: { ...idempotency, hash: 'h2' },
        }),
      ),
      { kind: 'idempotency_mismatch', message: 'Idempotency-Key reused with different request body' },
    );
    const claim = { key: 'reply:k', hash: 'h' };
    const reply = city.run({
      type: 'ReplyMail',
      id: first.message.id,
      input: { subject: 'r' },
      idempotency: claim,
    }) as Sent;
    const retry = city.run({
      type: 'ReplyMail',
      id: 'ml-99',
      input: { subject: 'r' },
      idempotency: claim,
    }) as Sent;
    t.same(
      retry,
      { message: reply.message, replayed: true },
      'a reply retry is answered before its original is looked up',
    );
  },
);

t.test('a reply goes to the sender, in the thread and rig of its original, reply-to it', async (t) => {
  const city = beadCity('ml');
  const original = (
    city.run({ type: 'SendMail', input: { to: 'mayor', from: 'ann', subject: 'Plan', rig: 'app' } }) as Sent
  ).message;
  const reply = (
    city.run({ type: 'ReplyMail', id: original.id, input: { from: 'mayor', body: 'ok' } }) as Sent
  ).message;
  t.match(city.model.beads.get(reply.id)!.bead, {
    assignee: 'ann',
    from: 'mayor',
    title: 'Re: Plan',
    description: 'ok',
    labels: [`thread:thread-${original.id}`, `reply-to:${original.id}`],
    metadata: { 'gc.rig': 'app' },
  });
  t.same(
    city.written.slice(-1).map((e) => [e.type, e.message]),
    [['mail.replied', 'ann']],
  );
  const second = (city.run({ type: 'ReplyMail', id: reply.id, input: { subject: 'Again' } }) as Sent).message;
  t.match(city.model.beads.get(second.id)!.bead, {
    labels: [`thread:thread-${original.id}`, `reply-to:${reply.id}`],
    assignee: 'mayor',
  });
  t.same(refusal(city.attempt({ type: 'ReplyMail', id: 'ml-99', input: {} })), {
    kind: 'not_found',
    message: 'message ml-99 not found',
  });
  const task = city.create({ title: 'a task' });
  t.same(refusal(city.attempt({ type: 'ReplyMail', id: task, input: {} })), {
    kind: 'not_found',
    message: `message ${task} not found`,
  });
  const unsigned = (city.run({ type: 'SendMail', input: { to: 'mayor', subject: 'anon' } }) as Sent).message;
  t.same(refusal(city.attempt({ type: 'ReplyMail', id: unsigned.id, input: {} })), {
    kind: 'invalid',
    message: `message ${unsigned.id} has no sender to reply to`,
  });
});

t.test('read, unread, archive and delete: each writes its change and notice once', async (t) => {
  const city = beadCity('ml');
  const { id } = (city.run({ type: 'SendMail', input: { to: 'mayor', from: 'ann', subject: 's' } }) as Sent)
    .message;
  const step = (type: 'MarkMailRead' | 'MarkMailUnread' | 'ArchiveMail' | 'DeleteMail') => {
    const from = city.written.length;
    const message = city.run({ type, id }) as Message;
    return { message, events: city.written.slice(from).map((e) => [e.type, e.subject]) };
  };
  let s = step('MarkMailRead');
  t.same(s.events, [
    ['bead.updated', id],
    ['mail.marked_read', id],
  ]);
  t.equal(s.message.read, true);
  t.same(city.model.beads.get(id)!.bead.labels, [`thread:thread-${id}`, 'read']);
  t.same(step('MarkMailRead').events, [], 'read twice: nothing');
  s = step('MarkMailUnread');
  t.same(s.events, [
    ['bead.updated', id],
    ['mail.marked_unread', id],
  ]);
  t.same(city.model.beads.get(id)!.bead.labels, [`thread:thread-${id}`]);
  t.same(step('MarkMailUnread').events, [], 'unread twice: nothing');
  s = step('ArchiveMail');
  t.same(s.events, [
    ['bead.closed', id],
    ['mail.archived', id],
  ]);
  t.equal(city.model.beads.get(id)!.bead.status, 'closed');
  t.same(step('ArchiveMail').events, [], 'archived twice: nothing');
  s = step('DeleteMail');
  t.same(s.events, [
    ['bead.deleted', id],
    ['mail.deleted', id],
  ]);
  for (const type of ['MarkMailRead', 'MarkMailUnread', 'ArchiveMail', 'DeleteMail'] as const)
    t.same(refusal(city.attempt({ type, id: 'ml-99' })), {
      kind: 'not_found',
      message: 'message ml-99 not found',
    });
});
