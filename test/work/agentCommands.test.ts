import t from 'tap';
import { workCity } from './helpers.ts';

/**
 * `gc hook`, `gc prime` and `gc mail` (the built binary, on its fast path) from a session's environment,
 * against a real supervisor: the default work query's tiers, the injected reminders, the mail round trip.
 */

t.setTimeout(120_000);

t.test('agent-facing commands in a session environment', async (t) => {
  const city = await workCity(t);
  const added = await city.sup.call('POST', `/v0/city/${city.name}/agents`, {
    name: 'polecat',
    provider: 'mock',
  });
  t.equal(added.status, 201, JSON.stringify(added.body));
  // What a pool session of polecat sees (bd's actor is the session's name).
  const session = {
    GC_TEMPLATE: 'polecat',
    GC_SESSION_ID: 'alpha-s1',
    GC_SESSION_NAME: 'polecat-1',
    GC_ALIAS: 'polecat-1',
    GC_AGENT: 'polecat-1',
    BEADS_ACTOR: 'polecat-1',
    GC_SESSION_ORIGIN: 'ephemeral',
  };

  await t.test('gc hook: no work is exit 1 (silent with --inject, exit 0)', async (t) => {
    const none = await city.gc(['hook'], session);
    t.same([none.code, none.stdout, none.stderr], [1, '[]', '']);
    const inject = await city.gc(['hook', '--inject'], session);
    t.same([inject.code, inject.stdout, inject.stderr], [0, '', '']);
  });

  let routed = '';
  await t.test('gc hook: routed work, then the claimed bead first', async (t) => {
    const other = JSON.parse((await city.bd(['create', 'Not for us', '--json'])).stdout) as { id: string };
    const mine = await city.bd([
      'create',
      'Polish the docs',
      '--metadata',
      '{"gc.routed_to":"polecat"}',
      '--json',
    ]);
    routed = (JSON.parse(mine.stdout) as { id: string }).id;
    const hook = await city.gc(['hook'], session);
    t.equal(hook.code, 0, hook.stderr);
    const items = JSON.parse(hook.stdout) as { id: string }[];
    t.same(
      items.map((i) => i.id),
      [routed],
      'tier 3: the ready bead routed to the template',
    );
    t.not(items[0]!.id, other.id);
    const inject = await city.gc(['hook', '--inject'], session);
    t.equal(inject.code, 0);
    t.match(
      inject.stdout,
      /^<system-reminder>\nYou have pending work\. Pick up the next item:\n\n<work-items>\n\[\n[\s\S]*\n\]\n<\/work-items>\n\nClaim it and start working\. Run 'gc hook' to see the full queue\.\n<\/system-reminder>\n$/,
    );
    const claimed = await city.bd(['update', routed, '--claim'], session);
    t.equal(claimed.code, 0, claimed.stderr);
    const after = JSON.parse((await city.gc(['hook'], session)).stdout) as { id: string; status: string }[];
    t.match(after, [{ id: routed, status: 'in_progress', assignee: 'polecat-1' }], 'tier 1: what it holds');
    const stranger = await city.gc(['hook'], {
      ...session,
      GC_SESSION_ID: 'x',
      GC_SESSION_NAME: 'polecat-2',
      GC_ALIAS: 'polecat-2',
    });
    t.equal(stranger.code, 1, 'another instance does not see a claimed bead');
  });

  await t.test('gc hook refusals: one line, exit 1; --inject stays silent', async (t) => {
    const bare = await city.gc(['hook'], { GC_SESSION_ID: '', GC_TEMPLATE: '' });
    t.same(
      [bare.code, bare.stderr],
      [1, 'gc hook: agent not specified (set $GC_AGENT or pass as argument)\n'],
    );
    const unknown = await city.gc(['hook', 'nobody']);
    t.same([unknown.code, unknown.stderr], [1, 'gc hook: agent "nobody" not found in config\n']);
    const down = await city.gc(['hook'], { ...session, GC_API: 'http://127.0.0.1:1' });
    t.equal(down.code, 1);
    t.match(down.stderr, /^gc hook: cannot reach the supervisor at http:\/\/127\.0\.0\.1:1: .*\n$/);
    const quiet = await city.gc(['hook', '--inject'], { ...session, GC_API: 'http://127.0.0.1:1' });
    t.same([quiet.code, quiet.stdout, quiet.stderr], [0, '', '']);
  });

  await t.test('gc prime: the worker prompt; --hook adds the beacon', async (t) => {
    const plain = await city.gc(['prime'], session);
    t.equal(plain.code, 0);
    t.match(plain.stdout, /^# Gas City worker\n[\s\S]*bd close <id>/);
    const hooked = await city.gc(['prime', '--hook'], session);
    t.match(hooked.stdout, /^\[alpha\] polecat-1 • \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n\n# Gas City worker/);
  });

  await t.test('gc mail: send, check, inbox, read, reply, archive', async (t) => {
    const sent = await city.gc(['mail', 'send', 'mayor/', '-s', 'Done', '-m', `Closed ${routed}`], session);
    t.equal(sent.code, 0, sent.stderr);
    const id = /^Sent message (\S+) to mayor\n$/.exec(sent.stdout)?.[1];
    t.ok(id, sent.stdout);
    const mayor = { GC_ALIAS: 'mayor', GC_SESSION_ID: 'alpha-m', GC_AGENT: 'mayor' };
    const check = await city.gc(['mail', 'check'], mayor);
    t.same([check.code, check.stdout], [0, '1 unread message(s) for mayor\n']);
    const inject = await city.gc(['mail', 'check', '--inject'], mayor);
    t.equal(
      inject.stdout,
      `<system-reminder>\nYou have 1 unread message(s).\n\n- ${id} from polecat-1 [Done]: Closed ${routed}\n\nRun 'gc mail read <id>' for full details, or 'gc mail inbox' to see all.\n</system-reminder>\n`,
    );
    const inbox = await city.gc(['mail', 'inbox'], mayor);
    t.match(
      inbox.stdout,
      new RegExp(`^ID\\s+FROM\\s+SUBJECT\\s+BODY\\n${id}\\s+polecat-1\\s+Done\\s+Closed ${routed}\\n$`),
    );
    const read = await city.gc(['mail', 'read', id!], mayor);
    t.match(
      read.stdout,
      /^ID: +\S+\nFrom: +polecat-1\nTo: +mayor\nSubject: Done\nSent: +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n\nClosed /,
    );
    const none = await city.gc(['mail', 'check'], mayor);
    t.same([none.code, none.stdout], [1, ''], 'read mail is not unread');
    t.equal((await city.gc(['mail', 'inbox'], mayor)).stdout, 'No unread messages for mayor\n');
    const reply = await city.gc(['mail', 'reply', id!, '-m', 'thanks'], mayor);
    t.match(reply.stdout, new RegExp(`^Replied to ${id} — sent message \\S+ to polecat-1\\n$`));
    t.equal((await city.gc(['mail', 'count'], session)).stdout, '1 total, 1 unread for polecat-1\n');
    t.equal((await city.gc(['mail', 'archive', id!], mayor)).stdout, `Archived message ${id}\n`);
    const bad = await city.gc(['mail', 'send'], session);
    t.same([bad.code, bad.stderr], [1, 'gc mail send: missing recipient\n']);
    const sub = await city.gc(['mail', 'frobnicate'], session);
    t.same([sub.code, sub.stderr], [1, 'gc mail: unknown subcommand "frobnicate"\n']);
  });
});
