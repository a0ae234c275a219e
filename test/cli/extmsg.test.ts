import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { call, conv, extmsgHarness, inbound, testAdapter, wire } from '../extmsg/helpers.ts';
import { isolatedEnv, jsonLines, runGc } from './helpers/gc.ts';

/**
 * `gc extmsg …` as the built binary against a listening app with a real extmsg service (the supervisor's
 * routes over a file journal) and a test HTTP adapter.
 */

t.setTimeout(5 * 60_000);

async function setup(t: Test) {
  const h = await extmsgHarness(t);
  const api = await h.app.listen({ port: 0, host: '127.0.0.1' });
  const home = await mkdtemp(join(tmpdir(), 'gc-cli-extmsg-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  return { h, env: isolatedEnv(home, { GC_API: api, GC_CITY: h.name }) };
}

const where = ['--provider', 'chat', '--account', 'acct', '--conversation', 'C1', '--scope', 'T1'];

t.test('adapters, bind, send and transcript', async (t) => {
  const { h, env } = await setup(t);
  const adapter = await testAdapter(t);
  const empty = await runGc(['extmsg', 'adapters'], { env });
  t.equal(empty.code, 0, empty.stderr);
  t.equal(empty.stdout, '', 'no adapters: empty stdout');
  await call(h, 'POST', '/extmsg/adapters', {
    provider: 'chat',
    account_id: 'acct',
    callback_url: adapter.url,
  });
  const list = await runGc(['extmsg', 'adapters'], { env });
  t.same(jsonLines(list.stdout), [{ provider: 'chat', account_id: 'acct', name: 'chat/acct' }]);

  const bind = await runGc(['extmsg', 'bind', ...where, '--session', 's1'], { env });
  t.equal(bind.code, 0, bind.stderr);
  t.match(jsonLines(bind.stdout), [{ SessionID: 's1', Status: 'active', Conversation: conv() }]);
  const clash = await runGc(['extmsg', 'bind', ...where, '--session', 's2'], { env });
  t.equal(clash.code, 1);
  t.match(clash.stderr, /^gc extmsg bind: conflict: conversation/);
  t.equal(clash.stdout, '');
  const neither = await runGc(['extmsg', 'bind', ...where], { env });
  t.equal(neither.code, 1);
  t.match(neither.stderr, /one of --session and --agent is required/);

  const sent = await runGc(['extmsg', 'send', 's1', 'hello from the cli', ...where], { env });
  t.equal(sent.code, 0, sent.stderr);
  t.match(jsonLines(sent.stdout), [
    { Receipt: { Delivered: true }, TranscriptEntry: { Text: 'hello from the cli' } },
  ]);
  t.equal(adapter.acked.length, 1);
  t.equal(adapter.acked[0]!.Text, 'hello from the cli');

  for (let i = 0; i < 3; i++) await call(h, 'POST', '/extmsg/inbound', inbound(`p${i}`, `in ${i}`));
  const all = await runGc(['extmsg', 'transcript', ...where], { env });
  t.equal(all.code, 0, all.stderr);
  t.same(
    jsonLines(all.stdout).map((e) => [(e as { Sequence: number }).Sequence, (e as { Text: string }).Text]),
    [
      [1, 'hello from the cli'],
      [2, 'in 0'],
      [3, 'in 1'],
      [4, 'in 2'],
    ],
  );
  const later = await runGc(['extmsg', 'transcript', ...where, '--after', '2', '--limit', '1'], { env });
  t.same(
    jsonLines(later.stdout).map((e) => (e as { Sequence: number }).Sequence),
    [3],
  );

  const unknown = await runGc(
    ['extmsg', 'send', 's1', 'x', '--provider', 'nope', '--account', 'acct', '--conversation', 'C1'],
    { env },
  );
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /^gc extmsg send: not_found: adapter nope\/acct not registered/);
});

t.test('send --strict exits 1 when the adapter has not acknowledged yet', async (t) => {
  const { h, env } = await setup(t);
  const adapter = await testAdapter(t, 'fail503');
  await wire(t, h, adapter);
  const res = await runGc(['extmsg', 'send', 's1', 'x', ...where, '--strict'], { env });
  t.equal(res.code, 1);
  t.match(jsonLines(res.stdout), [{ Receipt: { Delivered: false, FailureKind: 'transient' } }]);
  t.match(res.stderr, /not delivered yet: transient/);
});
