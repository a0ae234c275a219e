import t from 'tap';
import type { Message } from '../../schemas/mail.ts';
import { call, cityHarness, forEachBackend, type CityHarness } from './helpers.ts';

const send = async (h: CityHarness, body: Record<string, unknown>) => {
  const res = await call(h, 'POST', '/mail', body);
  if (res.statusCode !== 201) throw new Error(`send failed: ${res.body}`);
  return res.json<Message>();
};

const ids = (body: { items: Array<{ id: string }> }) => body.items.map((m) => m.id);

forEachBackend(t, async (t, env) => {
  t.test(
    'send answers 201 with the message, stored as a message bead, and records bead.created + mail.sent',
    async (t) => {
      const h = await cityHarness(t, env);
      const res = await call(h, 'POST', '/mail', {
        to: 'bob',
        subject: 'Hello',
        body: 'Hi Bob',
        from: 'al',
        rig: 'east',
      });
      t.equal(res.statusCode, 201);
      t.ok(res.headers['x-gc-index']);
      const msg = res.json();
      t.match(msg, {
        id: String,
        from: 'al',
        to: 'bob',
        subject: 'Hello',
        body: 'Hi Bob',
        read: false,
        rig: 'east',
        thread_id: `thread-${msg.id}`,
        created_at: String,
      });
      const bead = (await call(h, 'GET', `/bead/${msg.id}`)).json();
      t.match(bead, {
        issue_type: 'message',
        title: 'Hello',
        description: 'Hi Bob',
        assignee: 'bob',
        from: 'al',
      });
      const events = await h.journal.list();
      t.same(
        events.map((e) => [e.type, e.actor, e.subject]),
        [
          ['bead.created', 'al', msg.id],
          ['mail.sent', 'al', msg.id],
        ],
      );
      t.same(events[1]!.payload, { rig: 'east', message: msg });
      for (const body of [
        { to: 'bob' },
        { subject: 's' },
        { to: '', subject: 's' },
        { to: 'b', subject: 's', cc: 'x' },
      ]) {
        t.equal((await call(h, 'POST', '/mail', body)).statusCode, 422, JSON.stringify(body));
      }
    },
  );

  t.test('list: unread by default, status=all, per agent and rig, newest first, paged; count', async (t) => {
    const h = await cityHarness(t, env);
    const m1 = await send(h, { to: 'bob', subject: '1', from: 'al' });
    const m2 = await send(h, { to: 'bob', subject: '2', from: 'al', rig: 'east' });
    const m3 = await send(h, { to: 'cy', subject: '3', from: 'al' });
    await call(h, 'POST', `/mail/${m1.id}/read`);
    t.same(ids((await call(h, 'GET', '/mail')).json()), [m3.id, m2.id]);
    t.same(ids((await call(h, 'GET', '/mail?status=all')).json()), [m3.id, m2.id, m1.id]);
    t.same(ids((await call(h, 'GET', '/mail?agent=bob&status=all')).json()), [m2.id, m1.id]);
    t.same(ids((await call(h, 'GET', '/mail?rig=east')).json()), [m2.id]);
    const page = (await call(h, 'GET', '/mail?status=all&limit=2')).json();
    t.same(ids(page), [m3.id, m2.id]);
    t.equal(page.total, 3);
    const rest = (await call(h, 'GET', `/mail?status=all&limit=2&cursor=${page.next_cursor}`)).json();
    t.same(ids(rest), [m1.id]);
    t.notOk(rest.next_cursor);
    const bad = await call(h, 'GET', '/mail?status=read');
    t.equal(bad.statusCode, 400);
    t.equal(bad.json().detail, 'invalid: unsupported status filter: read; supported: unread, all');
    t.equal((await call(h, 'GET', '/mail?cursor=nope')).statusCode, 400);
    t.same((await call(h, 'GET', '/mail/count')).json(), { total: 3, unread: 2 });
    t.same((await call(h, 'GET', '/mail/count?agent=bob')).json(), { total: 2, unread: 1 });
    t.same((await call(h, 'GET', '/mail/count?rig=east')).json(), { total: 1, unread: 1 });
    await call(h, 'POST', `/mail/${m2.id}/archive`);
    t.same(
      (await call(h, 'GET', '/mail/count?agent=bob')).json(),
      { total: 1, unread: 0 },
      'archived mail is not counted',
    );
  });

  t.test(
    'get, read, mark-unread, archive and delete, each with its events; 404 for what is not a message',
    async (t) => {
      const h = await cityHarness(t, env);
      const msg = await send(h, { to: 'bob', subject: 's', from: 'al', rig: 'east' });
      const task = (await call(h, 'POST', '/beads', { title: 'not mail' })).json();
      const get = await call(h, 'GET', `/mail/${msg.id}`);
      t.equal(get.statusCode, 200);
      t.same(get.json(), msg);
      t.ok(get.headers['x-gc-index']);
      t.equal((await call(h, 'GET', `/mail/${msg.id}?rig=east`)).statusCode, 200);
      t.equal(
        (await call(h, 'GET', `/mail/${msg.id}?rig=west`)).statusCode,
        404,
        'a rig hint that does not match',
      );
      t.equal((await call(h, 'GET', `/mail/${task.id}`)).statusCode, 404, 'a task is not a message');
      t.equal((await call(h, 'GET', '/mail/zz-1')).statusCode, 404);

      const mark = async (path: string, status: string) => {
        const res = await call(h, path === '' ? 'DELETE' : 'POST', `/mail/${msg.id}${path}`);
        t.equal(res.statusCode, 200, path);
        t.same(res.json(), { status });
      };
      const before = h.service.service.index;
      await mark('/read', 'read');
      t.equal((await call(h, 'GET', `/mail/${msg.id}`)).json().read, true);
      await mark('/read', 'read');
      t.equal(h.service.service.index, before + 2, 'reading a read message writes nothing');
      await mark('/mark-unread', 'unread');
      t.equal((await call(h, 'GET', `/mail/${msg.id}`)).json().read, false);
      await mark('/archive', 'archived');
      await mark('/archive', 'archived');
      t.equal((await call(h, 'GET', `/bead/${msg.id}`)).json().status, 'closed', 'archiving closes the bead');
      t.same(ids((await call(h, 'GET', '/mail?status=all')).json()), [], 'archived mail leaves the mailbox');
      await mark('', 'deleted');
      t.equal((await call(h, 'GET', `/mail/${msg.id}`)).statusCode, 404);
      const events = (await h.journal.list()).slice(3).map((e) => e.type);
      t.same(events, [
        'bead.updated',
        'mail.marked_read',
        'bead.updated',
        'mail.marked_unread',
        'bead.closed',
        'mail.archived',
        'bead.deleted',
        'mail.deleted',
      ]);
      const archived = (await h.journal.list({ type: 'mail.archived' }))[0]!;
      t.match(archived.payload, { rig: 'east', message: { id: msg.id } });
      for (const path of ['/read', '/mark-unread', '/archive']) {
        t.equal((await call(h, 'POST', `/mail/zz-1${path}`)).statusCode, 404, path);
      }
      t.equal((await call(h, 'DELETE', '/mail/zz-1')).statusCode, 404);
      t.equal((await call(h, 'POST', `/mail/${task.id}/read`)).statusCode, 404);
    },
  );

  t.test('reply goes back to the sender in the same thread; the thread reads in order', async (t) => {
    const h = await cityHarness(t, env);
    const first = await send(h, { to: 'bob', subject: 'Plan', body: 'Shall we?', from: 'al', rig: 'east' });
    const res = await call(h, 'POST', `/mail/${first.id}/reply`, { body: 'Yes', from: 'bob' });
    t.equal(res.statusCode, 201);
    const reply = res.json();
    t.match(reply, {
      from: 'bob',
      to: 'al',
      subject: 'Re: Plan',
      body: 'Yes',
      thread_id: first.thread_id,
      reply_to: first.id,
      rig: 'east',
    });
    const again = (await call(h, 'POST', `/mail/${reply.id}/reply`, { from: 'al', subject: 'Done' })).json();
    t.match(again, { to: 'bob', subject: 'Done', thread_id: first.thread_id, reply_to: reply.id });
    const reRe = (await call(h, 'POST', `/mail/${reply.id}/reply`, { from: 'al' })).json();
    t.equal(reRe.subject, 'Re: Plan', 'no Re: Re:');
    await send(h, { to: 'bob', subject: 'Unrelated', from: 'al' });
    await call(h, 'POST', `/mail/${first.id}/archive`);
    for (const id of [first.id, again.id, first.thread_id]) {
      const thread = await call(h, 'GET', `/mail/thread/${id}`);
      t.equal(thread.statusCode, 200);
      t.same(
        ids(thread.json()),
        [first.id, reply.id, again.id, reRe.id],
        `thread by ${id}, archived included`,
      );
      t.equal(thread.json().total, 4);
    }
    t.same((await call(h, 'GET', `/mail/thread/${first.id}?rig=west`)).json(), { items: [], total: 0 });
    t.same((await call(h, 'GET', '/mail/thread/nothing')).json(), { items: [], total: 0 });
    const replied = await h.journal.list({ type: 'mail.replied' });
    t.equal(replied.length, 3);
    t.equal(replied[0]!.actor, 'bob');
    t.equal((await call(h, 'POST', '/mail/zz-1/reply', { body: 'x' })).statusCode, 404);
    const anonymous = await send(h, { to: 'bob', subject: 'who?' });
    const noSender = await call(h, 'POST', `/mail/${anonymous.id}/reply`, { body: 'x' });
    t.equal(noSender.statusCode, 400);
    t.equal(noSender.json().detail, `invalid: message ${anonymous.id} has no sender to reply to`);
  });
});
