import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { startBeadService, type BeadService } from '../../actors/beads/index.ts';
import type { Journal } from '../../actors/runtime/journal/journal.ts';
import { evolveAll } from '../../machines/beads/evolve.ts';
import { createModel, type BeadModel } from '../../machines/beads/model.ts';
import { cityHarness, forEachBackend } from './helpers.ts';

/** The parts of a model a snapshot must restore, as plain data. */
const plain = (m: Readonly<BeadModel>) => ({
  seq: m.seq,
  nextNumber: m.nextNumber,
  beads: [...m.beads].map(([id, e]) => [id, e.ordinal, e.bead]),
  idempotency: [...m.idempotency].map(([k, r]) => [k, r.hash, r.bead.id]),
  byLabel: [...m.indexes.byLabel.open].map(([k, v]) => [k, [...v].sort()]).sort(),
});

async function foldOf(journal: Journal, prefix: string) {
  const model = createModel(prefix);
  evolveAll(model, await journal.list(), journal.name);
  return plain(model);
}

forEachBackend(t, async (t, env) => {
  t.test('a restart restores the snapshot and folds only the events after it', async (t) => {
    const h = await cityHarness(t, env, { prefix: 'sn', snapshot: { min: 1 } });
    for (let i = 0; i < 5; i++) await h.service.service.create({ title: `b${i}`, labels: [`l${i % 2}`] });
    await h.service.service.create({ title: 'keyed' }, { idempotencyKey: 'k' });
    await h.service.stop();
    const options = { prefix: 'sn', snapshot: { min: 1 } };
    // Events that land while the store is down are folded on top of the snapshot.
    await h.journal.append({ type: 'session.woke', actor: 'x', payload: {} });
    const bead = h.service.service.model.beads.get('sn-1')!.bead;
    await h.journal.append({
      type: 'bead.updated',
      actor: 'x',
      subject: 'sn-1',
      payload: { bead: { ...bead, title: 'renamed while down' } },
    });
    const cityDir = h.citydir;
    const restarted = await startBeadService({ name: h.name, path: cityDir, journal: h.journal }, options);
    t.teardown(() => restarted.stop());
    t.same(restarted.service.startup.snapshotSeq, 6);
    t.equal(restarted.service.startup.replayed, 2);
    t.same(plain(restarted.service.model), await foldOf(h.journal, 'sn'));
    t.equal(restarted.service.model.beads.get('sn-1')!.bead.title, 'renamed while down');
    const replay = await restarted.service.create({ title: 'keyed' }, { idempotencyKey: 'k' });
    t.equal(replay.replayed, true, 'idempotency keys come back with the snapshot');
    t.equal(
      (await restarted.service.create({ title: 'next' })).bead.id,
      'sn-7',
      'and so does the id counter',
    );
  });

  t.test('a snapshot that does not match the log is set aside and the whole log folded', async (t) => {
    const h = await cityHarness(t, env, { prefix: 'sx', snapshot: { min: 1 } });
    for (let i = 0; i < 3; i++) await h.service.service.create({ title: `b${i}` });
    await h.service.stop();
    const file = join(h.citydir, '.gc', 'beads.snapshot.jsonl');
    t.ok(existsSync(file), 'the stop wrote a snapshot');
    const good = await readFile(file, 'utf8');
    const lines = good.trimEnd().split('\n');
    const header = JSON.parse(lines[0]!);
    const variants: Array<[string, string, RegExp]> = [
      ['torn', lines.slice(0, -1).join('\n') + '\n', /torn/],
      ['garbage', `${lines[0]}\n{oops\n`, /unreadable/],
      [
        'newer',
        [JSON.stringify({ ...header, seq: 99 }), ...lines.slice(1)].join('\n') + '\n',
        /does not hold/,
      ],
      [
        'another log',
        [JSON.stringify({ ...header, anchor: { type: 'x', ts: 'y' } }), ...lines.slice(1)].join('\n') + '\n',
        /does not hold/,
      ],
      [
        'another city',
        [JSON.stringify({ ...header, log: 'elsewhere' }), ...lines.slice(1)].join('\n') + '\n',
        /another city/,
      ],
      [
        'old version',
        [JSON.stringify({ ...header, version: 0 }), ...lines.slice(1)].join('\n') + '\n',
        /version/,
      ],
      ['extra', `${good}["b",1,{}]\n`, /after the end/],
    ];
    for (const [name, text, reason] of variants) {
      await writeFile(file, text);
      const errors: string[] = [];
      let s: BeadService | undefined;
      try {
        s = await startBeadService(
          { name: h.name, path: h.citydir, journal: h.journal },
          { prefix: 'sx', snapshot: { min: 1000 }, onError: (e) => errors.push(String(e)) },
        );
        t.equal(s.service.startup.snapshotSeq, undefined, `${name}: not restored`);
        t.equal(s.service.startup.replayed, 3, `${name}: the whole log folded`);
        t.same(plain(s.service.model), await foldOf(h.journal, 'sx'), `${name}: equal to a fold`);
        t.match(errors.join('\n'), reason, `${name}: says why`);
      } finally {
        await s?.stop();
      }
    }
  });

  t.test('snapshots are written in the background every N events, and can be turned off', async (t) => {
    const h = await cityHarness(t, env, { prefix: 'sb', snapshot: { every: 4, min: 1_000_000 } });
    const file = join(h.citydir, '.gc', 'beads.snapshot.jsonl');
    for (let i = 0; i < 5; i++) await h.service.service.create({ title: `b${i}` });
    await h.service.stop();
    t.ok(existsSync(file), 'written after 4 events, without a stop snapshot');
    const header = JSON.parse((await readFile(file, 'utf8')).split('\n')[0]!);
    t.equal(header.seq, 4);
    const off = await cityHarness(t, env, { snapshot: false });
    await off.service.service.create({ title: 'x' });
    await off.service.stop();
    t.notOk(existsSync(join(off.citydir, '.gc', 'beads.snapshot.jsonl')));
  });
});
