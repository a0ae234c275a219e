/**
 * Sessions as machine actors: the live view and the XState inspector see each session as an actor of the
 * session machine under its city, with its state as the machine's state and each move's command as the
 * event, from a real supervisor running the mock agent on tmux; and the reporter alone, fed bead events.
 */
import t from 'tap';
import { recorder } from '../helpers/inspectorRecorder.ts';
import { ActorInspection } from '../../actors/inspect/actorInspection.ts';
import { SessionActorReporter } from '../../actors/sessions/sessionActors.ts';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import type { ActorEntry } from '../../schemas/actors.ts';
import { cityWithMock, hasTmux } from '../sessions/e2eKit.ts';
import { openSse } from '../helpers/sse.ts';

const bead = (id: string, state: string, status = 'open') => ({
  id,
  title: id,
  status,
  issue_type: 'session',
  created_at: '2026-11-25T00:00:00Z',
  metadata: { state, template: 'worker', provider: 'mock', session_name: `s-${id}` },
});

let seq = 0;
const ev = (type: string, b: unknown): JournalEvent => ({
  seq: ++seq,
  type,
  ts: '2026-11-25T00:00:00Z',
  actor: 'gc',
  payload: { bead: b },
});

t.test('the reporter turns session beads into session-machine actors with their commands as events', (t) => {
  const hub = new ActorInspection();
  const { target, calls } = recorder();
  hub.attachInspector(target);
  const reporter = new SessionActorReporter('harbor', hub);
  reporter.seed([]);
  reporter.fold([
    ev('bead.created', bead('hb-1', 'creating')),
    ev('bead.created', { ...bead('hb-9', 'creating'), issue_type: 'task' }),
    ev('bead.updated', bead('hb-1', 'active')),
    ev('bead.updated', bead('hb-1', 'active')),
    ev('bead.updated', bead('hb-1', 'suspended')),
    ev('bead.created', bead('hb-2', 'creating')),
    ev('bead.closed', bead('hb-1', 'suspended', 'closed')),
  ]);
  t.same(calls, [
    'actor session:harbor/hb-1 creating under city:harbor',
    'transition session:harbor/hb-1 READY active active',
    'transition session:harbor/hb-1 - active active',
    'transition session:harbor/hb-1 SUSPEND suspended active',
    'actor session:harbor/hb-2 creating under city:harbor',
    'transition session:harbor/hb-1 CLOSE closed done',
  ]);
  t.same(
    hub.list().map((e) => e.id),
    ['session:harbor/hb-2'],
    'a closed session leaves the live list; a task bead never entered it',
  );
  reporter.stop();
  t.equal(
    calls.at(-1),
    'transition session:harbor/hb-2 - creating stopped',
    'the city stopping ends the rest',
  );
  t.same(hub.list(), []);
  t.end();
});

// CI installs tmux: there a missing tmux is a failure, elsewhere a visible skip.
if (!hasTmux() && process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
else if (!hasTmux()) t.test('sessions on a real supervisor', (t) => t.plan(0, 'tmux is not on PATH'));
else
  t.test(
    'a real session appears in the live view and the inspector, and leaves when it closes',
    async (t) => {
      const env = await cityWithMock(t);
      const { target, calls } = recorder();
      env.s.running.supervisor.inspection.attachInspector(target);
      const sse = await openSse(`${env.s.url}/v0/actors/stream`);
      t.teardown(() => sse.close());
      t.equal((await sse.nextEvent(5000)).event, 'actors');

      const created = await env.s.call('POST', `${env.base}/sessions`, { alias: 'lookout' });
      t.equal(created.status, 202, JSON.stringify(created.body));
      const seen: ActorEntry[] = [];
      const until = async (done: (e: ActorEntry) => boolean): Promise<ActorEntry> => {
        for (;;) {
          const frame = await sse.nextEvent(30_000);
          if (frame.event !== 'actor') continue;
          const entry = JSON.parse(frame.data) as ActorEntry;
          if (entry.kind !== 'session') continue;
          seen.push(entry);
          if (done(entry)) return entry;
        }
      };
      const active = await until((e) => e.state === 'active');
      t.match(active.id, /^session:port\//);
      t.equal(active.city, 'port');
      t.equal(active.context['alias'], 'lookout', 'with its context');
      t.equal(seen[0]?.state, 'creating', 'first seen creating');

      const listed = await env.s.call('GET', '/v0/actors');
      t.ok(
        listed.body.items.some((e: ActorEntry) => e.id === active.id && e.state === 'active'),
        'listed by GET /v0/actors',
      );
      t.ok(
        calls.includes(`actor ${active.id} creating under city:port`),
        'announced to the XState inspector under its city',
      );
      t.ok(calls.includes(`transition ${active.id} READY active active`), 'its READY move sent as the event');

      const id = active.id.split('/')[1]!;
      const closed = await env.s.call('POST', `${env.base}/session/${id}/close`);
      t.ok(closed.status < 300, `close answered ${closed.status} ${JSON.stringify(closed.body)}`);
      const done = await until((e) => e.id === active.id && e.status === 'done');
      t.equal(done.state, 'closed');
      const after = await env.s.call('GET', '/v0/actors');
      t.notOk(
        after.body.items.some((e: ActorEntry) => e.id === active.id),
        'a closed session is not listed',
      );
    },
  );
