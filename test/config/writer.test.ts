/**
 * The one config writer under pressure: parallel writes are serialised and none is lost, a write whose
 * event cannot be recorded leaves city.toml as it was, an edit made to the file by hand (while running or
 * while stopped) is recorded as `config.changed` from source `file`, and a write a crash interrupted is
 * settled from the log at the next start.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ConfigService } from '../../actors/config/configService.ts';
import { recordingLogger } from '../helpers/recordingLogger.ts';
import { eventually } from '../helpers/supervisor.ts';
import { call, configHarness } from './helpers.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const leftovers = (dir: string) => readdirSync(dir).filter((f) => /^city\.toml\.(prev|next)\./.test(f));

t.test('parallel writes are serialised: every one lands, each with its event', async (t) => {
  const h = await configHarness(t);
  const n = 12;
  const answers = await Promise.all([
    ...Array.from({ length: n }, (_, i) => call(h, 'POST', '/providers', { name: `p${i}`, command: 'echo' })),
    ...Array.from({ length: n }, (_, i) => call(h, 'POST', '/rigs', { name: `r${i}`, path: `r${i}` })),
    ...Array.from({ length: n }, (_, i) => call(h, 'PATCH', '/rig/app', { default_branch: `b${i}` })),
  ]);
  t.same(
    answers.map((a) => a.status),
    [...Array(2 * n).fill(201), ...Array(n).fill(200)],
  );
  const toml = await h.toml();
  for (let i = 0; i < n; i++) {
    t.match(toml, `[providers.p${i}]`, `provider p${i} is in the file`);
    t.match(toml, `name = "r${i}"`, `rig r${i} is in the file`);
  }
  const events = await h.configEvents();
  t.equal(events.length, 3 * n, 'one event per write');
  const hashes = events.map((e) => (e.payload as { sha256: string }).sha256);
  t.equal(new Set(hashes).size >= 2 * n, true, 'each creating write made a new file');
  t.equal(hashes.at(-1), sha(toml), 'the last event names the file as it is');
  const branch = (await call(h, 'GET', '/rig/app')).body.default_branch as string;
  const lastRigWrite = events.filter((e) => e.subject === 'rig/app').at(-1)!;
  t.equal(
    (lastRigWrite.payload as { fields: { default_branch: string } }).fields.default_branch,
    branch,
    'the rig keeps the value of the last write recorded',
  );
  t.same(leftovers(h.dir), [], 'no temporary file is left');
});

t.test('a write whose event cannot be recorded changes nothing', async (t) => {
  const h = await configHarness(t);
  const before = await h.toml();
  h.refuse(true);
  const r = await call(h, 'POST', '/providers', { name: 'slow', command: 'sleep' });
  t.equal(r.status, 503, JSON.stringify(r.body));
  t.match(r.body.detail, /injected refusal/);
  t.equal(await h.toml(), before, 'city.toml is as it was');
  t.same(await h.configEvents(), [], 'no event');
  t.same(leftovers(h.dir), [], 'the previous file was put back, nothing left beside it');
  t.equal((await call(h, 'GET', '/provider/slow')).status, 404);
  h.refuse(false);
  t.equal((await call(h, 'POST', '/providers', { name: 'slow', command: 'sleep' })).status, 201);
  t.same(
    (await h.configEvents()).map((e) => e.subject),
    ['provider/slow'],
    'the hand-edit check did not mistake the put-back file for an edit',
  );
});

t.test(
  'a hand edit of city.toml is picked up and evented; an invalid one keeps the last good config',
  async (t) => {
    const h = await configHarness(t, { pollMs: 20 });
    await call(h, 'POST', '/rigs', { name: 'api-made', path: 'x' });
    appendFileSync(join(h.dir, 'city.toml'), '\n[[rigs]]\nname = "handmade"\npath = "hm"\n');
    const fromFile = async () =>
      (await h.configEvents()).filter((e) => (e.payload as { source: string }).source === 'file');
    await eventually(async () => (await fromFile()).length === 1, 10_000);
    const [edit] = await fromFile();
    t.match(edit, {
      type: 'config.changed',
      actor: 'gc',
      subject: 'city.toml',
      payload: { source: 'file', kind: 'file', op: 'edited', valid: true, sha256: sha(await h.toml()) },
    });
    t.same(
      ((await call(h, 'GET', '/rigs')).body.items as Array<{ name: string }>).map((r) => r.name),
      ['app', 'api-made', 'handmade'],
    );

    writeFileSync(join(h.dir, 'city.toml'), '[workspace]\nname = "demo"\nbroken = \n');
    await eventually(async () => (await fromFile()).length === 2, 10_000);
    const bad = (await fromFile())[1]!;
    t.match(bad.payload, { valid: false, errors: [/^city\.toml: line 3: invalid TOML/] });
    t.equal((await call(h, 'GET', '/rigs')).body.total, 3, 'the last good config still answers');
    t.equal((await call(h, 'GET', '/config/validate')).body.valid, false);
    t.equal((await fromFile()).length, 2, 'each edit is recorded once');
  },
);

t.test('an edit made while the city was stopped is recorded at its start', async (t) => {
  const h = await configHarness(t);
  await call(h, 'POST', '/rigs', { name: 'first', path: 'f' });
  await h.service.stop();
  appendFileSync(join(h.dir, 'city.toml'), '\n[[rigs]]\nname = "offline"\npath = "o"\n');
  const again = new ConfigService({
    city: h.name,
    path: h.dir,
    log: h.log,
    logger: recordingLogger().logger,
    pollMs: 0,
  });
  await again.start();
  t.teardown(() => again.stop());
  const last = (await h.configEvents()).at(-1)!;
  t.match(last.payload, { source: 'file', op: 'edited', sha256: sha(await h.toml()) });
  t.same(
    (await again.rigs({})).items.map((r) => r.name),
    ['app', 'first', 'offline'],
  );
});

t.test('a write a crash interrupted is settled from the log at the next start', async (t) => {
  const h = await configHarness(t);
  await h.service.stop();
  const old = await h.toml();
  // The crash came after the rename, before the event: the kept previous file is put back.
  writeFileSync(join(h.dir, 'city.toml.prev.lost-write'), old);
  writeFileSync(join(h.dir, 'city.toml'), `${old}\n[[rigs]]\nname = "unrecorded"\npath = "u"\n`);
  writeFileSync(join(h.dir, 'city.toml.next.other'), 'half');
  const again = new ConfigService({
    city: h.name,
    path: h.dir,
    log: h.log,
    logger: recordingLogger().logger,
    pollMs: 0,
  });
  await again.start();
  t.teardown(() => again.stop());
  t.equal(readFileSync(join(h.dir, 'city.toml'), 'utf8'), old, 'the unrecorded change is undone');
  t.same(leftovers(h.dir), []);
  t.same(await h.configEvents(), [], 'nothing recorded for it');
});
