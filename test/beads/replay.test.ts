import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { canReplay, replayLog } from '../../actors/beads/replay.ts';
import { startBeadService } from '../../actors/beads/startBeadService.ts';
import { DamagedRecordError } from '../../actors/runtime/damagedRecords.ts';
import { FileJournal } from '../../actors/runtime/journal/fileJournal.ts';
import type { JournalDraft } from '../../actors/runtime/journal/journal.ts';
import { evolveAll } from '../../machines/beads/evolve.ts';
import {
  createModel,
  IDEMPOTENCY_KEY,
  REQUEST_HASH_KEY,
  type BeadModel,
} from '../../machines/beads/model.ts';
import type { StoredBead } from '../../machines/beads/storedBead.ts';

const PREFIX = 'rp';

/** Everything a model holds, as plain data: Map and Set contents sorted, the creation order as walked. */
function plain(m: Readonly<BeadModel>) {
  const sets = (index: Map<string, Set<string>>) =>
    [...index].map(([k, v]) => [k, [...v].sort()] as const).sort((a, b) => a[0].localeCompare(b[0]));
  const halved = (index: { open: Map<string, Set<string>>; closed: Map<string, Set<string>> }) => ({
    open: sets(index.open),
    closed: sets(index.closed),
  });
  const ix = m.indexes;
  return {
    prefix: m.prefix,
    seq: m.seq,
    nextNumber: m.nextNumber,
    // Map order is creation order, which pages rely on: compared as it is.
    beads: [...m.beads].map(([id, e]) => [id, e.ordinal, e.bead]),
    idempotency: [...m.idempotency].map(([k, r]) => [k, r.hash, r.bead]),
    indexes: {
      byStatus: sets(ix.byStatus),
      byType: halved(ix.byType),
      byAssignee: halved(ix.byAssignee),
      byRig: halved(ix.byRig),
      byLabel: halved(ix.byLabel),
      children: sets(ix.children),
      roots: sets(ix.roots),
      // Tombstones included: a walk sees the same entries either way.
      order: [...ix.order.newestFirst()],
    },
  };
}

/** A small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `n` drafts of a random history: creates (some keyed, some keys repeated, some of a foreign prefix or
 * of this prefix in a non-canonical form),
 * updates of every indexed field (status, type, assignee, labels, parent, rig, root, dependencies),
 * closes, deletes (of live, unknown and already deleted beads), re-creates of deleted ids, a bead first
 * seen through an update, and other families' events in between.
 */
function history(seed: number, n: number): JournalDraft[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const live = new Map<string, StoredBead>();
  const dead: string[] = [];
  let next = 1;
  const drafts: JournalDraft[] = [];
  const ts = '2030-01-01T00:00:00.000Z';
  const emit = (type: string, bead: StoredBead) =>
    drafts.push({ type, actor: 'test', subject: bead.id, ts, payload: { bead } });
  const fresh = (id: string): StoredBead => ({
    id,
    title: `t${drafts.length}`,
    status: 'open',
    issue_type: pick(['task', 'bug', 'epic']),
    created_at: ts,
    ...(rand() < 0.5 ? { assignee: pick(['a', 'b', 'c']) } : {}),
    ...(rand() < 0.5 ? { labels: [pick(['x', 'y']), pick(['y', 'z'])] } : {}),
  });
  while (drafts.length < n) {
    const r = rand();
    const ids = [...live.keys()];
    if (r < 0.2 || ids.length === 0) {
      // Mostly the store's own ids; some of another prefix, and some of this prefix but not its `<n>` form
      // (a leading zero, a suffix), which must stay apart from the canonical id of the same number. A few
      // canonical ids far above the counter (written by another writer): kept apart from the counter's
      // while the log is short, beside them once it is longer, and re-created across that line.
      const kind = rand();
      const id =
        kind < 0.75
          ? `${PREFIX}-${next++}`
          : kind < 0.8
            ? `${PREFIX}-${1100 + Math.floor(rand() * 20)}`
            : kind < 0.9
              ? `zz-${Math.floor(rand() * 1e6) + 1}`
              : kind < 0.95
                ? `${PREFIX}-0${Math.max(1, next - 1)}`
                : `${PREFIX}-${Math.max(1, next - 1)}x`;
      const bead = fresh(id);
      if (rand() < 0.2) {
        const key = `create-bead:k${Math.floor(rand() * 5)}`;
        bead.metadata = { [IDEMPOTENCY_KEY]: key, [REQUEST_HASH_KEY]: `h${drafts.length}` };
      }
      live.set(bead.id, bead);
      emit('bead.created', bead);
    } else if (r < 0.6) {
      const id = pick(ids);
      const bead: StoredBead = { ...live.get(id)!, title: `t${drafts.length}` };
      const field = Math.floor(rand() * 8);
      if (field === 0) bead.status = pick(['open', 'in_progress', 'closed']);
      if (field === 1) bead.issue_type = pick(['task', 'bug', 'epic', 'convoy']);
      if (field === 2) bead.assignee = rand() < 0.3 ? undefined : pick(['a', 'b', 'c', 'd']);
      if (field === 3) bead.labels = rand() < 0.2 ? [] : [pick(['x', 'y', 'w']), pick(['z', 'x'])];
      if (field === 4) bead.parent = rand() < 0.3 ? undefined : pick(ids);
      if (field === 5) bead.metadata = { ...bead.metadata, 'gc.rig': pick(['r1', 'r2']) };
      if (field === 6) bead.metadata = { ...bead.metadata, 'gc.root_bead_id': pick(ids) };
      if (field === 7) bead.dependencies = [{ issue_id: id, depends_on_id: pick(ids), type: 'blocks' }];
      if (bead.assignee === undefined) delete bead.assignee;
      if (bead.parent === undefined) delete bead.parent;
      live.set(id, bead);
      emit(bead.status === 'closed' ? 'bead.closed' : 'bead.updated', bead);
    } else if (r < 0.7) {
      const bead: StoredBead = { ...live.get(pick(ids))!, status: 'closed' };
      live.set(bead.id, bead);
      emit('bead.closed', bead);
    } else if (r < 0.82) {
      const id = pick(ids);
      emit('bead.deleted', live.get(id)!);
      live.delete(id);
      dead.push(id);
    } else if (r < 0.85) {
      emit('bead.deleted', fresh(rand() < 0.5 && dead.length ? pick(dead) : `${PREFIX}-${next + 1000}`));
    } else if (r < 0.88 && dead.length > 0) {
      // Another writer re-creates a deleted id: it comes back as a new bead, last in creation order.
      const bead = fresh(pick(dead));
      live.set(bead.id, bead);
      emit(rand() < 0.5 ? 'bead.created' : 'bead.updated', bead);
    } else if (r < 0.9) {
      // A bead first seen through an update (its create is in another log).
      const bead = fresh(`${PREFIX}-${next++ + 5000}`);
      live.set(bead.id, bead);
      emit('bead.updated', bead);
    } else {
      drafts.push({
        type: pick(['session.woke', 'mail.sent', 'convoy.created']),
        actor: 'test',
        ts,
        payload: {},
      });
    }
  }
  return drafts;
}

/** A file journal in a temp dir holding `drafts`, closed and removed at the end of `t`. */
async function logOf(t: Test, drafts: readonly JournalDraft[]): Promise<FileJournal> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-replay-'));
  const journal = await FileJournal.open({ name: 'replay-city', file: join(dir, '.gc', 'events.jsonl') });
  t.teardown(async () => {
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < drafts.length; i += 50) await journal.appendBatch(drafts.slice(i, i + 50));
  return journal;
}

async function fullFold(journal: FileJournal, upTo = Infinity): Promise<BeadModel> {
  const model = createModel(PREFIX);
  evolveAll(
    model,
    (await journal.list()).filter((e) => e.seq <= upTo),
    journal.name,
  );
  return model;
}

t.test('a replay builds the model an event-by-event fold builds, over random histories', async (t) => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    const journal = await logOf(t, history(seed, 600));
    t.ok(canReplay(journal));
    const model = createModel(PREFIX);
    const last = await replayLog(model, journal);
    const full = await fullFold(journal);
    t.same(plain(model), plain(full), `seed ${seed}`);
    t.equal(last?.seq, full.seq);
    // Deletions must have happened, or the history did not test them.
    t.ok(full.nextNumber > full.beads.size, `seed ${seed} deleted beads`);
  }
});

t.test('a damaged record stops the replay with its log and seq, the model at the event before', async (t) => {
  const drafts = history(11, 200);
  const at = 150;
  drafts.splice(at - 1, 0, {
    type: 'bead.updated',
    actor: 'test',
    subject: 'rp-1',
    payload: { bead: { title: 'no id' } },
  } as JournalDraft);
  const journal = await logOf(t, drafts);
  const model = createModel(PREFIX);
  const err = await replayLog(model, journal).catch((e: unknown) => e);
  t.ok(err instanceof DamagedRecordError);
  t.match(err, { log: 'replay-city', seq: at, type: 'bead.updated' });
  t.same(plain(model), plain(await fullFold(journal, at - 1)));

  // Through the service: start-up fails with the same error, as the event-by-event fold failed.
  await t.rejects(startBeadService({ name: 'replay-city', path: '', journal }, { prefix: PREFIX }), {
    name: 'DamagedRecordError',
    log: 'replay-city',
    seq: at,
  });
});

t.test('a started store replays its file log, then folds and writes as before', async (t) => {
  const journal = await logOf(t, history(21, 400));
  const beads = await startBeadService({ name: 'replay-city', path: '', journal }, { prefix: PREFIX });
  t.teardown(() => beads.stop());
  const store = beads.service;
  t.equal(store.startup.replayed, await journal.head());
  t.equal(store.index, await journal.head());
  t.same(plain(store.model), plain(await fullFold(journal)));
  // The next id continues the counter; a write lands on top of the replayed model.
  const { bead } = await store.create({ title: 'after replay' });
  t.equal(bead.id, `${PREFIX}-${(await fullFold(journal)).nextNumber - 1}`);
  t.equal(store.index, await journal.head());
  t.same(plain(store.model), plain(await fullFold(journal)));
});
