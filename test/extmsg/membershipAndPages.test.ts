/**
 * Who takes part in a conversation and how its transcript pages (machines/extmsg/queries.ts `isMember`,
 * `transcriptPage`, `bindingsOfSession`): a binding or a group participant and nobody else; pages after a
 * cursor, oldest or newest first, their total and the cursor to the rest. Expected values by hand.
 */
import t from 'tap';
import {
  bindingsOfSession,
  decideBind,
  decideEnsureGroup,
  decideOutbound,
  decideRegisterAdapter,
  decideUpsertParticipant,
  isMember,
  MAX_TRANSCRIPT_PAGE,
  transcriptPage,
} from '../../machines/extmsg/index.ts';
import type { ConversationRef } from '../../schemas/extmsg.ts';
import { EXTMSG_CTX as ctx, extmsgCity } from '../helpers/extmsgCity.ts';

const conv = (conversation_id: string, more: Partial<ConversationRef> = {}): ConversationRef => ({
  scope_id: 'team',
  provider: 'slack',
  account_id: 'acme',
  conversation_id,
  kind: 'room',
  ...more,
});

t.test('members: the bound session, a participant of the group, nobody else', async (t) => {
  const city = extmsgCity();
  const general = conv('general');
  const launch = conv('launch');
  t.notOk(isMember(city.model, general, 's1'), 'nobody takes part in an unknown conversation');
  city.run(decideBind(city.model, { conversation: general, session_id: 's1' }, ctx));
  t.ok(isMember(city.model, general, 's1'));
  t.notOk(isMember(city.model, general, 's2'));
  const group = city.run(decideEnsureGroup(city.model, { root_conversation: launch }, ctx));
  t.notOk(isMember(city.model, launch, 's-bob'), 'a group without participants');
  for (const [handle, session_id] of [
    ['amy', 's-amy'],
    ['bob', 's-bob'],
  ] as const)
    city.run(decideUpsertParticipant(city.model, { group_id: group.ID, handle, session_id }, ctx));
  t.ok(isMember(city.model, launch, 's-bob'), 'the second participant too');
  t.ok(isMember(city.model, launch, 's-amy'));
  t.notOk(isMember(city.model, launch, 's1'));
  t.ok(isMember(city.model, conv('t', { kind: 'thread', parent_conversation_id: 'launch' }), 's-bob'));
  t.same(
    bindingsOfSession(city.model, 's1').map((b) => b.Conversation.conversation_id),
    ['general'],
  );
  t.same(bindingsOfSession(city.model, 's-bob'), []);
});

t.test('transcript pages: after a cursor, oldest or newest first, with the total after it', async (t) => {
  const city = extmsgCity();
  const general = conv('general');
  city.run(
    decideRegisterAdapter(
      city.model,
      { provider: 'slack', account_id: 'acme', callback_url: 'http://h' },
      ctx,
    ),
  );
  city.run(decideBind(city.model, { conversation: general, session_id: 's1' }, ctx));
  for (let i = 1; i <= 7; i++)
    city.run(decideOutbound(city.model, { session_id: 's1', text: `m${i}`, conversation: general }, ctx));
  const page = (q: Parameters<typeof transcriptPage>[2]) => {
    const p = transcriptPage(city.model, general, q);
    return { texts: p.items.map((e) => e.Text), total: p.total, next: p.next_cursor };
  };
  t.same(page({}), { texts: ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'], total: 7, next: undefined });
  t.same(page({ limit: 3 }), { texts: ['m1', 'm2', 'm3'], total: 7, next: '3' });
  t.same(page({ limit: 3, afterSequence: 3 }), { texts: ['m4', 'm5', 'm6'], total: 4, next: '6' });
  t.same(
    page({ limit: 3, afterSequence: 4 }),
    { texts: ['m5', 'm6', 'm7'], total: 3, next: undefined },
    'reaching the end',
  );
  t.same(page({ afterSequence: 9 }), { texts: [], total: 0, next: undefined }, 'past the end');
  t.same(page({ order: 'desc', limit: 2 }), { texts: ['m7', 'm6'], total: 7, next: undefined });
  t.same(page({ order: 'desc', limit: 10, afterSequence: 5 }), {
    texts: ['m7', 'm6'],
    total: 2,
    next: undefined,
  });
  t.same(page({ limit: 0 }).texts.length, 7, 'limit 0 is the default');
  t.equal(MAX_TRANSCRIPT_PAGE, 500);
  t.same(transcriptPage(city.model, conv('none'), {}), { items: [], total: 0 });
});
