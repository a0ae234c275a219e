import t, { type Test } from 'tap';
import { withJetStream } from '../helpers/nats.ts';
import { createCity, eventually, startTestSupervisor } from '../helpers/supervisor.ts';

async function scenario(t: Test, natsUrl?: string): Promise<void> {
  const first = await startTestSupervisor(t, { ...(natsUrl ? { natsUrl } : {}) });
  await createCity(first, 'harbor');
  const base = '/v0/city/harbor';
  const bead = await first.call('POST', `${base}/beads`, { title: 'moor the ship', type: 'bug' });
  t.equal(bead.status, 201, 'the supervisor started the bead store in the starting_bead_store phase');
  t.equal(bead.body.id, 'ha-1', 'ids carry the city prefix');
  const mail = await first.call('POST', `${base}/mail`, { to: 'mayor', subject: 'docked', from: 'pilot' });
  t.equal(mail.status, 201);
  const convoy = await first.call('POST', `${base}/convoys`, { title: 'fleet', items: [bead.body.id] });
  t.equal(convoy.status, 201);
  const events = await first.call('GET', `${base}/events?type=bead.created`);
  t.equal(events.status, 200);
  t.ok(
    events.body.items.some(
      (e: { payload: { bead: { issue_type: string } } }) => e.payload.bead.issue_type === 'bug',
    ),
    'GET /events shows bead.created with the bead (payload.bead.issue_type)',
  );
  const root = first.root;
  await first.close();

  const second = await startTestSupervisor(t, { root, ...(natsUrl ? { natsUrl } : {}) });
  await eventually(async () => (await second.call('GET', `${base}/beads`)).status === 200, 15_000);
  const got = await second.call('GET', `${base}/bead/${bead.body.id}`);
  t.equal(got.status, 200, 'the bead survives a supervisor restart');
  t.equal(got.body.parent, convoy.body.id);
  t.equal((await second.call('GET', `${base}/mail`)).body.total, 1);
  const next = await second.call('POST', `${base}/beads`, { title: 'next' });
  t.equal(next.body.id, 'ha-4', 'ids continue after the restart');
}

t.test(
  'a supervisor-started city serves beads, mail and convoys, and keeps them across a restart (file)',
  (t) => scenario(t),
);

t.test('the same on JetStream', async (t) => {
  const nats = await withJetStream(t);
  if (nats) await scenario(t, nats.url);
});
