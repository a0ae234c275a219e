/**
 * "Adding a family" (docs/architecture.md) holds: the widgets family of test/fixtures/widgets/, written in its
 * own folders only, compiles (this file is type-checked with the rest) and is served by a supervisor given
 * `[...FAMILIES, widgetsFamily]`, the one line a real family adds to http/families.ts. Its service starts
 * with the city, its routes validate and answer, its event is typed in the catalogue (served only with
 * `include=internal`, as our own types are), and its state is folded back from the log after a restart.
 */
import t from 'tap';
import { FAMILIES } from '../../http/families.ts';
import { EVENT_CATALOG, isCatalogEventType, registerFamilyEvents } from '../../schemas/eventCatalog.ts';
import { WidgetMadeStored } from '../fixtures/widgets/schemas/widgets.ts';
import { createCity, eventually, startTestSupervisor } from '../helpers/supervisor.ts';
import { widgetsFamily } from '../fixtures/widgets/http/routes/widgetsFamily.ts';

const families = [...FAMILIES, widgetsFamily];

t.test("a family's event types join the catalogue once, and never over another's", async (t) => {
  t.equal(EVENT_CATALOG['widget.made'], WidgetMadeStored, 'registered by the schemas file');
  t.doesNotThrow(() => registerFamilyEvents({ 'widget.made': WidgetMadeStored }), 'the same again: no-op');
  t.throws(
    () => registerFamilyEvents({ 'bead.created': WidgetMadeStored }),
    /bead\.created is already in the catalogue/,
    'a core type cannot be taken over',
  );
  t.throws(() => registerFamilyEvents({ 'widget.made': EVENT_CATALOG['request.accepted'] }), /already/);
  t.equal(EVENT_CATALOG['widget.made'], WidgetMadeStored, 'a refused registration changed nothing');
});

t.test('a family added in its own folders and one registry line is served', async (t) => {
  t.ok(isCatalogEventType('widget.made'), "the family's schemas file registered its event type");
  const first = await startTestSupervisor(t, { options: { families } });
  await createCity(first, 'works');
  const base = '/v0/city/works/widgets';

  t.same((await first.call('GET', base)).body, { items: [], total: 0 }, 'its service started with the city');
  const made = await first.call('POST', base, { name: 'sprocket', color: 'red' });
  t.equal(made.status, 201);
  t.same(made.body, { name: 'sprocket', color: 'red' });
  t.equal((await first.call('POST', base, { name: 'cog' })).body.color, 'grey', "its decider's default");

  const again = await first.call('POST', base, { name: 'sprocket' });
  t.equal(again.status, 409, 'its rejection goes through the one error mapping');
  t.match(again.body, { status: 409, detail: /already exists/ });
  const bad = await first.call('POST', base, { name: 'Sprocket!', size: 3 });
  t.equal(bad.status, 422, 'its body schema is enforced');
  t.match(bad.headers.get('content-type'), /^application\/problem\+json/);
  t.equal((await first.call('GET', base)).body.total, 2, 'a refused make changed nothing');

  const hidden = await first.call('GET', '/v0/city/works/events?type=widget.made');
  t.equal(hidden.body.items.length, 0, 'its events are ours: not in the default feed');
  const shown = await first.call('GET', '/v0/city/works/events?type=widget.made&include=internal');
  t.same(
    shown.body.items.map((e: { subject: string; payload: unknown }) => [e.subject, e.payload]),
    [
      ['cog', { widget: { name: 'cog', color: 'grey' } }],
      ['sprocket', { widget: { name: 'sprocket', color: 'red' } }],
    ],
    'one typed event per make, through the city log runtime (newest first)',
  );

  const root = first.root;
  await first.close();
  const second = await startTestSupervisor(t, { root, options: { families } });
  await eventually(async () => (await second.call('GET', base)).status === 200, 15_000);
  const listed = await second.call('GET', base);
  t.same(
    listed.body.items.map((w: { name: string }) => w.name),
    ['cog', 'sprocket'],
    'folded back from the log',
  );
  await second.close();

  const without = await startTestSupervisor(t, { root });
  await eventually(async () => (await without.call('GET', '/v0/city/works/beads')).status === 200, 15_000);
  const unserved = await without.call('GET', base);
  t.equal(unserved.status, 404, 'the same city on a supervisor without the line: no such route');
  t.match(unserved.body.detail, /no route for GET/);
});
