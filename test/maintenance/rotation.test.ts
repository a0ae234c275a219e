/**
 * Event-log rotation on both journal backends: the segment since the last rotation is archived (gzipped
 * JSON Lines, every event as the log holds it), `events.rotated` is the next segment's first event (seq
 * continues), the live log is never cut, an empty segment is upstream's no-op, and an archive lost to a crash
 * is written again at the next start. Over HTTP: the route's shape, `wait`, and bad input.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import type { Journal } from '../../actors/runtime/journal/journal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import { EventRotation } from '../../actors/maintenance/eventRotation.ts';
import { maintenanceServiceFactory, MAINTENANCE_SERVICE } from '../../actors/maintenance/startMaintenance.ts';
import { BACKEND_CASES } from '../helpers/eventBackends.ts';
import { memoryApp } from '../helpers/app.ts';
import { eventually } from '../helpers/supervisor.ts';

const archived = (file: string): unknown[] =>
  gunzipSync(readFileSync(file))
    .toString()
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);

async function city(t: Test, journal: Journal) {
  const path = await mkdtemp(join(tmpdir(), 'gc-rot-'));
  t.teardown(() => rm(path, { recursive: true, force: true }));
  const log = new LogRuntime(journal);
  t.teardown(() => log.close());
  return { name: journal.name, path, journal, log };
}

for (const backend of BACKEND_CASES.filter((b) => b.name !== 'memory')) {
  t.test(`rotation on the ${backend.name} journal`, async (t) => {
    const open = await backend.setup(t);
    if (!open) return;
    const c = await city(t, await open(`rot${randomBytes(3).toString('hex')}`));
    const rotation = await EventRotation.start(c);
    t.same(await rotation.rotate(true), { rotated: false, reason: 'active log is empty' });

    for (let i = 1; i <= 5; i++) await c.log.appendCustom({ type: 'note', actor: 'me', message: `n${i}` });
    const first = await rotation.rotate(true);
    t.match(first, {
      rotated: true,
      archive: { first_seq: 1, last_seq: 5, compression_status: 'complete' },
      anchor_event: { seq: 6, type: 'events.rotated' },
    });
    const path = first.archive!.path;
    t.match(path, new RegExp(`^${c.path}/\\.gc/events-\\d{8}T\\d{6}Z-seq-1-5\\.jsonl\\.gz$`));
    t.same(archived(path), await c.journal.list({ afterSeq: 0, limit: 5 }), 'the archive holds the segment');
    const [anchor] = await c.journal.list({ afterSeq: 5 });
    t.match(anchor, {
      seq: 6,
      type: 'events.rotated',
      actor: 'events',
      message: `rotated to ${path}`,
      payload: { prior_archive: path, prior_first_seq: 1, prior_last_seq: 5 },
    });
    t.equal(await c.journal.head(), 6, 'the live log is kept whole');
    t.equal((await c.journal.list()).length, 6);

    // Right after a rotation the segment holds the anchor alone, as upstream's fresh active log does.
    const again = await rotation.rotate(true);
    t.match(again, { rotated: true, archive: { first_seq: 6, last_seq: 6 }, anchor_event: { seq: 7 } });
    await rotation.stop();

    // An archive lost before it was written (a crash) is written again when the city starts.
    await rm(again.archive!.path);
    const restarted = await EventRotation.start(c);
    await eventually(() => existsSync(again.archive!.path));
    t.same(archived(again.archive!.path), await c.journal.list({ afterSeq: 5, limit: 1 }));
    await c.log.appendCustom({ type: 'note', actor: 'me' });
    const third = await restarted.rotate(false);
    t.match(third.archive, { first_seq: 7, last_seq: 8 }, 'the segments follow on after a restart');
    t.ok(['pending', 'complete'].includes(third.archive!.compression_status));
    await restarted.stop();
    t.ok(existsSync(third.archive!.path), 'written once the rotation settles');
  });
}

t.test('POST /events/rotate over HTTP', async (t) => {
  const open = await BACKEND_CASES.find((b) => b.name === 'file')!.setup(t);
  const c = await city(t, await open!('rothttp'));
  await writeFile(join(c.path, 'city.toml'), '[workspace]\nname = "rothttp"\n');
  const started = await maintenanceServiceFactory().start({ ...c, config: { agents: [] } });
  t.teardown(() => started.stop());
  const { app, deps } = await memoryApp();
  t.teardown(() => app.close());
  deps.cities.set({ ...c, running: true, services: { [MAINTENANCE_SERVICE]: started.service } });
  const post = (url: string, headers: Record<string, string> = { 'x-gc-request': '1' }) =>
    app.inject({ method: 'POST', url, headers });

  t.same((await post('/v0/city/rothttp/events/rotate')).json(), {
    rotated: false,
    reason: 'active log is empty',
  });
  await c.log.appendCustom({ type: 'note', actor: 'me' });
  const refused = await post('/v0/city/rothttp/events/rotate', {});
  t.equal(refused.statusCode, 403, 'the anti-CSRF header is required');
  const bad = await post('/v0/city/rothttp/events/rotate?wait=soon');
  t.equal(bad.statusCode, 422);
  t.match(bad.json(), { detail: 'validation failed', errors: [{ location: 'query.wait' }] });
  t.equal(await c.journal.head(), 1, 'refused requests rotate nothing');
  const res = await post('/v0/city/rothttp/events/rotate?wait=true');
  t.equal(res.statusCode, 200);
  t.match(res.json(), {
    rotated: true,
    archive: { first_seq: 1, last_seq: 1, compression_status: 'complete' },
    anchor_event: { seq: 2, type: 'events.rotated' },
  });
  const ghost = await post('/v0/city/ghost/events/rotate');
  t.equal(ghost.statusCode, 404);
  t.equal(ghost.json().detail, 'not_found: city not found or not running: ghost');
});
