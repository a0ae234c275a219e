/**
 * What a change leaves alone (machines/beads/decideBead.ts, decideMail.ts, decideConvoy.ts): a patch
 * keeps every field it does not name, a create or a send without a rig or labels records none, a claim of
 * an unheld bead in progress takes it, and mail and convoy steps on beads made without labels or gone.
 */
import t from 'tap';
import type { Message } from '../../schemas/mail.ts';
import { beadCity } from '../helpers/beadCity.ts';

t.test('a patch keeps every field it does not name', async (t) => {
  const city = beadCity('pk');
  const parent = city.create({ title: 'p' });
  const id = city.create({
    title: 't',
    description: 'd',
    assignee: 'ann',
    priority: 3,
    labels: ['l'],
    metadata: { k: 'v' },
    parent,
  });
  const before = city.model.beads.get(id)!.bead;
  city.update(id, { title: 'renamed' });
  t.same({ ...city.model.beads.get(id)!.bead, title: 't', updated_at: before.updated_at }, before);
});

t.test('labels added to a bead that had none are only those', async (t) => {
  const city = beadCity('pk');
  const id = city.create({ title: 't' });
  city.update(id, { labels: ['x'] });
  t.same(city.model.beads.get(id)!.bead.labels, ['x']);
});

t.test('a create or a send without rig or labels records no key for them', async (t) => {
  const city = beadCity('pk');
  const id = city.create({ title: 't', metadata: { k: 'v' } });
  const bead = city.model.beads.get(id)!.bead;
  t.same(Object.keys(bead.metadata ?? {}), ['k']);
  t.notOk('labels' in bead);
  const { message } = city.run({ type: 'SendMail', input: { to: 'm', from: 'a', subject: 's' } }) as {
    message: Message;
  };
  t.same(Object.keys(city.model.beads.get(message.id)!.bead.metadata ?? {}), []);
});

t.test('a claim of an unheld bead already in progress takes it', async (t) => {
  const city = beadCity('pk');
  const id = city.create({ title: 't' });
  city.update(id, { status: 'in_progress' });
  city.run({ type: 'ClaimBead', id, claimant: 'w-1' });
  t.equal(city.model.beads.get(id)!.bead.assignee, 'w-1');
});

t.test('mail on a message bead made without labels: its reply starts the thread, read works', async (t) => {
  const city = beadCity('pk', 'supervisor');
  const id = city.create({ title: 'raw', type: 'message', assignee: 'mayor' });
  city.update(id, { description: 'body' });
  // A message bead with a sender but no thread label, as a hand-made one may be.
  const raw = city.model.beads.get(id)!.bead;
  city.model.beads.set(id, { ...city.model.beads.get(id)!, bead: { ...raw, from: 'ann' } });
  const { message } = city.run({ type: 'ReplyMail', id, input: { subject: 'Re' } }) as { message: Message };
  const reply = city.model.beads.get(message.id)!.bead;
  t.same(reply.labels, [`thread:thread-${id}`, `reply-to:${id}`]);
  t.equal(reply.description, undefined, 'no body: none');
  t.equal(reply.from, undefined, 'no sender given: none');
  t.equal(city.written.at(-1)!.actor, 'supervisor');
  city.run({ type: 'MarkMailRead', id });
  t.same(city.model.beads.get(id)!.bead.labels, ['read']);
});

t.test('announcing a convoy that is gone names none', async (t) => {
  const city = beadCity('pk');
  t.equal(city.run({ type: 'AnnounceConvoy', convoyId: 'pk-9' }), 'pk-9');
  t.match(city.written.at(-1), { type: 'convoy.created', subject: 'pk-9' });
  t.notOk('message' in city.written.at(-1)!);
});
