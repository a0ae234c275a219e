import t from 'tap';
import { call, conv, extmsgHarness, testAdapter } from './helpers.ts';

t.test(
  'adapters: register answers 201, lists with X-GC-Index, re-register replaces, delete removes',
  async (t) => {
    const h = await extmsgHarness(t);
    const adapter = await testAdapter(t);
    const reg = await call(h, 'POST', '/extmsg/adapters', {
      provider: 'slack',
      account_id: 'A1',
      callback_url: adapter.url,
      capabilities: { SupportsChildConversations: true, SupportsAttachments: false, MaxMessageLength: 4000 },
    });
    t.equal(reg.statusCode, 201);
    t.same(reg.json(), { status: 'registered', provider: 'slack', account_id: 'A1', name: 'slack/A1' });
    await call(h, 'POST', '/extmsg/adapters', { provider: 'discord', account_id: 'B', name: 'Bee' });
    const again = await call(h, 'POST', '/extmsg/adapters', {
      provider: 'discord',
      account_id: 'B',
      name: 'Bee',
    });
    t.equal(again.statusCode, 201, 'registering unchanged is fine');
    const list = await call(h, 'GET', '/extmsg/adapters');
    t.equal(list.statusCode, 200);
    t.equal(list.headers['x-gc-cache-age-s'], '0');
    t.ok(Number(list.headers['x-gc-index']) >= 4);
    t.same(list.json(), {
      items: [
        { provider: 'discord', account_id: 'B', name: 'Bee' },
        { provider: 'slack', account_id: 'A1', name: 'slack/A1' },
      ],
      total: 2,
    });
    const types = (await h.events()).map((e) => e.type);
    t.same(types, [
      'extmsg.adapter_registered',
      'extmsg.adapter_added',
      'extmsg.adapter_registered',
      'extmsg.adapter_added',
    ]);
    const del = await call(h, 'DELETE', '/extmsg/adapters', { provider: 'slack', account_id: 'A1' });
    t.equal(del.statusCode, 200);
    t.same(del.json(), { status: 'unregistered' });
    const gone = await call(h, 'DELETE', '/extmsg/adapters', { provider: 'slack', account_id: 'A1' });
    t.equal(gone.statusCode, 404);
    t.match(gone.json().detail, /^not_found: adapter slack\/A1 not registered/);
    t.equal((await h.events()).at(-1)!.type, 'extmsg.adapter_removed');
  },
);

t.test('adapters survive a restart (registration is an event)', async (t) => {
  const h = await extmsgHarness(t);
  await call(h, 'POST', '/extmsg/adapters', {
    provider: 'slack',
    account_id: 'A1',
    callback_url: 'http://x/',
  });
  await h.restart();
  t.same((await call(h, 'GET', '/extmsg/adapters')).json().items, [
    { provider: 'slack', account_id: 'A1', name: 'slack/A1' },
  ]);
  t.equal(
    h.handle.service.model.adapters.values().next().value!.callback_url,
    'http://x',
    'trailing / trimmed',
  );
});

t.test('bind, refresh, conflict, list by session, unbind', async (t) => {
  const h = await extmsgHarness(t);
  const bound = await call(h, 'POST', '/extmsg/bind', {
    conversation: conv(),
    session_id: 's1',
    metadata: { a: '1' },
  });
  t.equal(bound.statusCode, 200);
  t.match(bound.json(), {
    ID: 'xb-1',
    SchemaVersion: 1,
    SessionID: 's1',
    AgentName: '',
    Status: 'active',
    ExpiresAt: null,
    BindingGeneration: 1,
    Metadata: { a: '1' },
    Conversation: conv(),
  });
  const refresh = await call(h, 'POST', '/extmsg/bind', {
    conversation: conv(),
    session_id: 's1',
    metadata: { a: '2' },
  });
  t.match(refresh.json(), { ID: 'xb-1', Metadata: { a: '2' }, BindingGeneration: 1 });
  const clash = await call(h, 'POST', '/extmsg/bind', { conversation: conv(), session_id: 's2' });
  t.equal(clash.statusCode, 409);
  t.match(clash.json().detail, /^conflict: conversation chat\/acct\/T1\/C1 is bound to s1/);
  await call(h, 'POST', '/extmsg/bind', { conversation: conv('C2'), agent_name: 'mayor' });
  const list = await call(h, 'GET', '/extmsg/bindings?session_id=s1');
  t.equal(list.statusCode, 200);
  t.ok(list.headers['x-gc-index']);
  t.equal(list.json().total, 1);
  const missing = await call(h, 'GET', '/extmsg/bindings');
  t.equal(missing.statusCode, 400);
  const unbind = await call(h, 'POST', '/extmsg/unbind', { session_id: 's1' });
  t.equal(unbind.statusCode, 200);
  t.match(unbind.json(), { unbound: [{ ID: 'xb-1', Status: 'ended' }] });
  const again = await call(h, 'POST', '/extmsg/unbind', { session_id: 's1' });
  t.same(again.json(), { unbound: [] });
  const rebound = await call(h, 'POST', '/extmsg/bind', { conversation: conv(), session_id: 's2' });
  t.match(rebound.json(), { SessionID: 's2', BindingGeneration: 2 });
  const notices = (await h.events()).filter((e) => e.type === 'extmsg.bound' || e.type === 'extmsg.unbound');
  t.match(
    notices.map((e) => [e.type, e.payload]),
    [
      ['extmsg.bound', { conversation_id: 'C1', provider: 'chat', session_id: 's1' }],
      ['extmsg.bound', { session_id: 's1' }],
      ['extmsg.bound', { conversation_id: 'C2', session_id: '', agent_name: 'mayor' }],
      ['extmsg.unbound', { count: 1, session_id: 's1' }],
      ['extmsg.bound', { session_id: 's2' }],
    ],
  );
});

t.test('bind and unbind refuse bad bodies with 400 and change nothing', async (t) => {
  const h = await extmsgHarness(t);
  const before = (await h.events()).length;
  for (const body of [
    { session_id: 's1' },
    { conversation: conv() },
    { conversation: conv(), session_id: 's1', agent_name: 'mayor' },
  ]) {
    const res = await call(h, 'POST', '/extmsg/bind', body);
    t.equal(res.statusCode, 400, JSON.stringify(body));
    t.match(res.json().detail, /^invalid: /);
  }
  t.equal((await call(h, 'POST', '/extmsg/unbind', {})).statusCode, 400);
  const bad = await call(h, 'POST', '/extmsg/bind', {
    conversation: { ...conv(), kind: 'channel' },
    session_id: 's',
  });
  t.equal(bad.statusCode, 422);
  t.match(bad.json(), { errors: [{ location: 'body.conversation.kind' }] });
  const extra = await call(h, 'POST', '/extmsg/bind', {
    conversation: conv(),
    session_id: 's',
    color: 'red',
  });
  t.equal(extra.statusCode, 422);
  t.equal((await h.events()).length, before, 'no event');
});

t.test('groups: ensure is idempotent (201), lookup by root, 404 when absent', async (t) => {
  const h = await extmsgHarness(t);
  const made = await call(h, 'POST', '/extmsg/groups', {
    root_conversation: conv('G'),
    default_handle: ' Mayor ',
  });
  t.equal(made.statusCode, 201);
  t.match(made.json(), { ID: 'xg-1', Mode: 'launcher', DefaultHandle: 'mayor', LastAddressedHandle: '' });
  const same = await call(h, 'POST', '/extmsg/groups', { root_conversation: conv('G'), mode: 'other' });
  t.equal(same.statusCode, 201);
  t.same(same.json(), made.json());
  const found = await call(
    h,
    'GET',
    '/extmsg/groups?scope_id=T1&provider=chat&account_id=acct&conversation_id=G&kind=room',
  );
  t.equal(found.statusCode, 200);
  t.same(found.json(), made.json());
  const none = await call(
    h,
    'GET',
    '/extmsg/groups?scope_id=T1&provider=chat&account_id=acct&conversation_id=H&kind=room',
  );
  t.equal(none.statusCode, 404);
  t.match(none.json().detail, /^not_found: group not found/);
  const noRoot = await call(h, 'POST', '/extmsg/groups', {});
  t.equal(noRoot.statusCode, 422);
  t.match(noRoot.json(), { errors: [{ location: 'body.root_conversation' }] });
  const created = (await h.events()).filter((e) => e.type === 'extmsg.group_created');
  t.same(
    created.map((e) => e.payload),
    [{ conversation_id: 'G', mode: 'launcher', provider: 'chat' }],
  );
});

t.test('participants: upsert keeps the id, delete removes, unknown group or handle is 404', async (t) => {
  const h = await extmsgHarness(t);
  const group = (await call(h, 'POST', '/extmsg/groups', { root_conversation: conv('G') })).json();
  const up = await call(h, 'POST', '/extmsg/participants', {
    group_id: group.ID,
    handle: 'Mayor',
    session_id: 's1',
  });
  t.equal(up.statusCode, 200);
  t.match(up.json(), { GroupID: group.ID, Handle: 'mayor', SessionID: 's1', Public: false, Metadata: {} });
  const again = await call(h, 'POST', '/extmsg/participants', {
    group_id: group.ID,
    handle: 'mayor',
    session_id: 's2',
    public: true,
  });
  t.match(again.json(), { ID: up.json().ID, SessionID: 's2', Public: true });
  const before = (await h.events()).length;
  const noGroup = await call(h, 'POST', '/extmsg/participants', {
    group_id: 'xg-99',
    handle: 'a',
    session_id: 's',
  });
  t.equal(noGroup.statusCode, 404);
  t.match(noGroup.json().detail, /^not_found: group xg-99 not found/);
  const noHandle = await call(h, 'DELETE', '/extmsg/participants', { group_id: group.ID, handle: 'ghost' });
  t.equal(noHandle.statusCode, 404);
  const empty = await call(h, 'POST', '/extmsg/participants', {
    group_id: group.ID,
    handle: '  ',
    session_id: 's',
  });
  t.equal(empty.statusCode, 422);
  t.equal((await h.events()).length, before, 'no event on any error');
  const del = await call(h, 'DELETE', '/extmsg/participants', { group_id: group.ID, handle: 'MAYOR' });
  t.equal(del.statusCode, 200);
  t.same(del.json(), { status: 'removed' });
  t.equal(
    (await call(h, 'DELETE', '/extmsg/participants', { group_id: group.ID, handle: 'mayor' })).statusCode,
    404,
  );
});

t.test('mutations need X-GC-Request; a city without the service answers 503; unknown city 404', async (t) => {
  const h = await extmsgHarness(t);
  const res = await h.app.inject({
    method: 'POST',
    url: `${h.base}/extmsg/adapters`,
    payload: { provider: 'p', account_id: 'a' },
  });
  t.equal(res.statusCode, 403);
  const unknown = await h.app.inject({ method: 'GET', url: '/v0/city/nowhere/extmsg/adapters' });
  t.equal(unknown.statusCode, 404);
  h.deps.cities.set({ name: 'bare', path: '', journal: h.journal, running: true, services: {} });
  const bare = await h.app.inject({ method: 'GET', url: '/v0/city/bare/extmsg/adapters' });
  t.equal(bare.statusCode, 503);
});
