import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import t, { type Test } from 'tap';
import { CityFence, OWNER_CHANGED } from '../../actors/supervisor/cluster/cityFence.ts';
import { CityLeases, type LeaseLoss } from '../../actors/supervisor/cluster/cityLeases.ts';
import { NotOwnerError } from '../../actors/runtime/errors.ts';
import { JetStreamJournalBackend } from '../../actors/runtime/journal/jetstreamJournal.ts';
import type { EventDraft, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import { recordOf } from '../../machines/recorded.ts';
import { withJetStream } from '../helpers/nats.ts';

/**
 * Issue #20, one writer per city: the lease is a JetStream KV key (revision-checked create, update and
 * delete; the bucket's max age is the TTL), and the log itself fences a supervisor that lost it.
 */
const TTL = 900;

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function bucket(t: Test, url: string): Promise<KV> {
  const nc = await connect({ servers: url });
  t.teardown(() => nc.close());
  return new Kvm(jetstream(nc)).create(`leases_${Math.random().toString(36).slice(2, 8)}`, {
    ttl: TTL,
    history: 1,
  });
}

t.test(
  'one holder at a time: a held lease is refused, a dead holder’s lease expires after the TTL',
  async (t) => {
    const nats = await withJetStream(t);
    if (!nats) return;
    const kv = await bucket(t, nats.url);
    const lostA: Array<[string, LeaseLoss]> = [];
    const a = new CityLeases(kv, { id: 'a', url: 'http://a' }, TTL, (c, why) => lostA.push([c, why]));
    const b = new CityLeases(kv, { id: 'b', url: 'http://b' }, TTL, () => {});
    const epochA = await a.acquire('alpha');
    t.ok(epochA !== undefined && epochA > 0, 'the first taker gets the lease with its revision as epoch');
    t.equal(await b.acquire('alpha'), undefined, 'a second taker is refused while it is held');
    t.match(await b.owner('alpha'), { id: 'a', url: 'http://a' }, 'the bucket names the holder and its URL');
    // Renewing past one TTL keeps it: B is still refused after the TTL has passed since the take.
    const start = Date.now();
    while (Date.now() - start < TTL * 1.5) {
      await a.renewAll();
      await new Promise((r) => setTimeout(r, TTL / 3));
    }
    t.ok(a.holds('alpha'), 'renewed every TTL/3, the holder keeps its lease');
    t.equal(await b.acquire('alpha'), undefined, 'and nobody else can take it');

    // A stops renewing (its process died): B gets the lease once the key has expired.
    const stopped = Date.now();
    let epochB: number | undefined;
    await until('the lease to expire', async () => (epochB = await b.acquire('alpha')) !== undefined);
    const waited = Date.now() - stopped;
    t.ok(waited >= TTL * 0.5, `not before the TTL ran (${waited} ms after the last renewal)`);
    t.ok(epochB! > epochA!, 'the new epoch is greater');
    t.notOk(a.holds('alpha'), 'the old holder no longer counts itself as owner (local validity ran out)');
    await a.renewAll();
    t.same(lostA, [['alpha', 'expired']], 'its renewal reports the loss');
  },
);

t.test('a renewal that finds another revision loses the lease at once', async (t) => {
  const nats = await withJetStream(t);
  if (!nats) return;
  const kv = await bucket(t, nats.url);
  const lost: LeaseLoss[] = [];
  const a = new CityLeases(kv, { id: 'a', url: '' }, TTL * 10, (_c, why) => lost.push(why));
  await a.acquire('beta');
  await kv.put('beta', JSON.stringify({ id: 'intruder', url: '' }));
  await a.renewAll();
  t.same(lost, ['taken']);
  t.notOk(a.holds('beta'));
  await a.release('beta');
  t.match(await a.owner('beta'), { id: 'intruder' }, 'releasing a lost lease never deletes the new holder');
});

const draft = (type: string) => ({ type, actor: 'test', payload: {} }) as unknown as EventDraft;
const write = (log: LogRuntime, type: string) =>
  log.run(() => ({ records: [recordOf(draft(type))], commit: (s: readonly JournalEvent[]) => s[0]!.seq }));

t.test(
  'a supervisor that lost its lease never writes again, even while it still believes it owns the city',
  async (t) => {
    const nats = await withJetStream(t);
    if (!nats) return;
    const file = '/cities/gamma/.gc/events.jsonl';
    const backendA = new JetStreamJournalBackend({ servers: nats.url });
    const backendB = new JetStreamJournalBackend({ servers: nats.url });
    t.teardown(() => Promise.all([backendA.close(), backendB.close()]));
    const journalA = await backendA.open({ name: 'gamma', file });
    const journalB = await backendB.open({ name: 'gamma', file });
    // A's lease view is stuck at "held" (a paused process whose clock has not caught up); B holds it truly.
    const viewA = { me: { id: 'a', url: 'http://a' }, holds: () => true, knownOwner: () => undefined };
    const viewB = { me: { id: 'b', url: 'http://b' }, holds: () => true, knownOwner: () => undefined };
    const fenceA = new CityFence('gamma', viewA);
    const fenceB = new CityFence('gamma', viewB);
    const logA = new LogRuntime(journalA, 0, { guard: fenceA.guard });
    const logB = new LogRuntime(journalB, 0, { guard: fenceB.guard });
    await logA.attach(fenceA, 0);
    await logB.attach(fenceB, 0);

    t.equal(await write(logA, 'custom.a1'), 1, 'the creator writes while no owner is named');
    await logB.catchUp();
    await fenceB.takeOver(logB, 7);
    t.equal(fenceB.logOwner, 'b', 'the new owner fenced the log');
    t.equal(await write(logB, 'custom.b1'), 3, 'and writes after it');

    // A has not read the log since seq 1: its append at head 1 is refused by JetStream, its catch-up
    // folds the new owner, and the guard refuses the retry before it is sent.
    await t.rejects(write(logA, 'custom.a2'), NotOwnerError, 'the old owner is refused');
    t.equal(fenceA.logOwner, 'b', 'it has learnt the owner from the log');
    await t.rejects(write(logA, 'custom.a3'), NotOwnerError, 'and every later write is refused up front');
    const types = (await journalB.list()).map((e) => e.type);
    t.same(types, ['custom.a1', OWNER_CHANGED, 'custom.b1'], 'nothing of the old owner after the fence');
    t.match((await journalB.list({ type: OWNER_CHANGED }))[0]?.payload, {
      owner: 'b',
      url: 'http://b',
      epoch: 7,
    });
    await Promise.all([logA.close(), logB.close()]);
  },
);

t.test('without the lease nothing is written, whatever the log says', async (t) => {
  const nats = await withJetStream(t);
  if (!nats) return;
  const backend = new JetStreamJournalBackend({ servers: nats.url });
  t.teardown(() => backend.close());
  const journal = await backend.open({ name: 'delta', file: '/cities/delta/.gc/events.jsonl' });
  let held = true;
  const fence = new CityFence('delta', {
    me: { id: 'a', url: '' },
    holds: () => held,
    knownOwner: () => ({ id: 'b', url: 'http://b' }),
  });
  const log = new LogRuntime(journal, 0, { guard: fence.guard });
  await log.attach(fence, 0);
  await write(log, 'custom.ok');
  held = false;
  const refused = await write(log, 'custom.late').catch((e: unknown) => e);
  t.type(refused, NotOwnerError);
  t.match((refused as NotOwnerError).detail, /^not_owner: city delta is owned by supervisor b at http:\/\/b/);
  t.equal((refused as NotOwnerError).status, 421);
  t.equal(await journal.head(), 1, 'the refused write is not in the log');
  await log.close();
});
