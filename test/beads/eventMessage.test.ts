import t from 'tap';
import type { Bead } from '../../schemas/beads.ts';
import type { Message } from '../../schemas/mail.ts';
import { backendEnv, call, cityHarness, createBead } from './helpers.ts';

/**
 * Events carry upstream's human-readable `message`: a `bead.*` event the bead's title (activity views show
 * it), `mail.sent` / `mail.replied` the recipient and `convoy.created` the convoy's name (as upstream's
 * `gc mail send|reply` and `gc convoy create` record them); the other notices carry none. On the file journal, so the field survives a write and a read back.
 */
t.test(
  'bead events carry the title as message; mail sent/replied the recipient, convoy created its name',
  async (t) => {
    const env = await backendEnv(t, 'file');
    const h = await cityHarness(t, env!);
    const bead = await createBead(t, h, { title: 'Fix the login page' });
    t.equal((await call(h, 'PATCH', `/bead/${bead.id}`, { title: 'Fix the login form' })).statusCode, 200);
    t.equal((await call(h, 'POST', `/bead/${bead.id}/close`)).statusCode, 200);
    t.equal((await call(h, 'POST', `/bead/${bead.id}/reopen`)).statusCode, 200);
    t.equal((await call(h, 'DELETE', `/bead/${bead.id}`)).statusCode, 200);

    const sent = (
      await call(h, 'POST', '/mail', { to: 'bob', from: 'al', subject: 'Hello' })
    ).json<Message>();
    const reply = await call(h, 'POST', `/mail/${sent.id}/reply`, { from: 'bob', subject: 'Re', body: 'Hi' });
    t.equal(reply.statusCode, 201, reply.body);
    t.equal((await call(h, 'POST', `/mail/${sent.id}/read`)).statusCode, 200);
    const convoy = (await call(h, 'POST', '/convoys', { title: 'Release 2' })).json<Bead>();

    const events = await h.journal.list();
    t.same(
      events.map((e) => [e.type, e.subject, e.message]),
      [
        ['bead.created', bead.id, 'Fix the login page'],
        ['bead.updated', bead.id, 'Fix the login form'],
        ['bead.closed', bead.id, 'Fix the login form'],
        ['bead.updated', bead.id, 'Fix the login form'],
        ['bead.deleted', bead.id, 'Fix the login form'],
        ['bead.created', sent.id, 'Hello'],
        ['mail.sent', sent.id, 'bob'],
        ['bead.created', reply.json<Message>().id, 'Re'],
        ['mail.replied', reply.json<Message>().id, 'al'],
        ['bead.updated', sent.id, 'Hello'],
        ['mail.marked_read', sent.id, undefined],
        ['bead.created', convoy.id, 'Release 2'],
        ['convoy.created', convoy.id, 'Release 2'],
      ],
    );

    const wire = await h.app.inject({ url: `${h.base}/events?type=bead.created` });
    t.equal(wire.statusCode, 200, wire.body);
    t.same(
      wire.json<{ items: Array<{ message?: string }> }>().items.map((e) => e.message),
      ['Release 2', 'Re', 'Hello', 'Fix the login page'],
      'the event list serves the message',
    );
  },
);
