import t from 'tap';
import { checkScope, planEvents, type EventsFlags } from '../../cli/events/plan.ts';

const base: EventsFlags = { watch: false, follow: false, seq: false, timeout: '30s' };
const NOW = Date.parse('2026-06-21T10:00:00Z');

t.test('the mode is list unless exactly one of --watch, --follow, --seq is given', async (t) => {
  t.equal(planEvents(base, NOW).mode, 'list');
  t.equal(planEvents({ ...base, watch: true }, NOW).mode, 'watch');
  t.equal(planEvents({ ...base, follow: true }, NOW).mode, 'follow');
  t.equal(planEvents({ ...base, seq: true }, NOW).mode, 'seq');
  t.throws(() => planEvents({ ...base, watch: true, follow: true, seq: true }, NOW), {
    message: '--watch and --follow and --seq are mutually exclusive',
  });
});

t.test('filters are parsed once: since becomes an instant, payload matches a matcher', async (t) => {
  const p = planEvents(
    { ...base, type: ' bead.created ', since: '1h30m', 'payload-match': ['a.b=1', 'a.b=2'] },
    NOW,
  );
  t.equal(p.filter.type, 'bead.created');
  t.equal(p.filter.sinceEpochMs, NOW - 5_400_000);
  t.same([...p.filter.matcher], [['a.b', ['1', '2']]]);
  t.equal(p.timeoutMs, 30_000);
  t.equal(planEvents({ ...base, since: '' }, NOW).filter.sinceEpochMs, undefined, 'an empty --since is none');
});

t.test('cursor flags: --after 0 is an explicit start, blank --after-cursor is none', async (t) => {
  t.equal(planEvents({ ...base, after: 0 }, NOW).after, 0);
  t.equal(planEvents({ ...base, 'after-cursor': '  ' }, NOW).afterCursor, undefined);
  t.equal(
    planEvents({ ...base, 'after-cursor': '__supervisor__:3,alpha:1' }, NOW).afterCursor,
    '__supervisor__:3,alpha:1',
  );
  t.equal(planEvents({ ...base, 'after-cursor': '0' }, NOW).afterCursor, '0', '"0" replays everything');
});

t.test('scope checks pair --after with a city and --after-cursor with the supervisor', async (t) => {
  const city = { kind: 'city', city: 'alpha' } as const;
  const sup = { kind: 'supervisor' } as const;
  t.doesNotThrow(() => checkScope(planEvents({ ...base, after: 3 }, NOW), city));
  t.doesNotThrow(() => checkScope(planEvents({ ...base, 'after-cursor': 'a:1' }, NOW), sup));
  t.throws(() => checkScope(planEvents({ ...base, after: 3 }, NOW), sup), {
    message: '--after is only valid when a city is in scope; use --after-cursor for supervisor events',
  });
  t.throws(() => checkScope(planEvents({ ...base, 'after-cursor': 'a:1' }, NOW), city), {
    message: '--after-cursor is only valid in supervisor scope',
  });
});
