import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startBeadService } from '../../actors/beads/startBeadService.ts';
import { CityActor, cityLogFile } from '../../actors/supervisor/cityActor.ts';
import { DamagedRecordError, foldingReported } from '../../actors/runtime/damagedRecords.ts';
import type { JournalDraft, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournalBackend } from '../../actors/runtime/journal/memoryJournal.ts';
import { SupervisorLog, supervisorLogFile } from '../../actors/supervisor/supervisorLog.ts';
import { recordingLogger } from '../helpers/recordingLogger.ts';

/**
 * Replay decodes every record it folds through the catalogue's schema: a damaged one stops the fold with a
 * DamagedRecordError naming its log and seq, where it used to fold a silent default ('' for a missing
 * field, or skipping the record) and run on wrong state.
 */

const TS = '2026-01-01T00:00:00Z';

/** A memory backend whose log at `file` already holds `drafts` (seq 1…), as a restart would find it. */
function backendWith(file: string, drafts: JournalDraft[]): MemoryJournalBackend {
  const events: JournalEvent[] = drafts.map((d, i) => ({ ts: TS, ...d, seq: i + 1 }));
  return new MemoryJournalBackend(new Map([[file, events]]));
}

const damaged = (log: string, seq: number, type: string) => ({
  constructor: DamagedRecordError,
  name: 'DamagedRecordError',
  log,
  seq,
  type,
  message: new RegExp(`^damaged record in log ${log} at seq ${seq} \\(${type.replace('.', '\\.')}\\)`),
});

t.test('a request.accepted without request_id stops the supervisor-log replay with its seq', async (t) => {
  const home = await mkdtemp(join(tmpdir(), 'gc-damaged-'));
  const backend = backendWith(supervisorLogFile(home), [
    { type: 'supervisor.started', actor: 'gc', subject: 'supervisor', payload: { previous_exit: 'unknown' } },
    {
      type: 'request.accepted',
      actor: 'api',
      subject: 'alpha',
      payload: { operation: 'city.create', name: 'alpha', path: '/c/alpha' },
    },
  ]);
  const err = await SupervisorLog.open(backend, home).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.match(err, damaged(SUPERVISOR_LOG, 2, 'request.accepted'));
  t.match((err as DamagedRecordError).problems.join('\n'), /request_id/, 'it says what is missing');
});

t.test('a previous_exit outside the schema is damage, not a silent `unknown`', async (t) => {
  const home = await mkdtemp(join(tmpdir(), 'gc-damaged-'));
  const backend = backendWith(supervisorLogFile(home), [
    {
      type: 'supervisor.started',
      actor: 'gc',
      subject: 'supervisor',
      payload: { previous_exit: 'exploded' },
    },
  ]);
  await t.rejects(SupervisorLog.open(backend, home), damaged(SUPERVISOR_LOG, 1, 'supervisor.started'));
});

t.test('a request.failed without its error fields is damage, not a failure with empty texts', async (t) => {
  const home = await mkdtemp(join(tmpdir(), 'gc-damaged-'));
  const backend = backendWith(supervisorLogFile(home), [
    {
      type: 'request.accepted',
      actor: 'api',
      subject: 'alpha',
      payload: { request_id: 'r1', operation: 'city.create', name: 'alpha', path: '/c/alpha' },
    },
    { type: 'request.failed', actor: 'api', subject: 'alpha', payload: { request_id: 'r1' } },
  ]);
  await t.rejects(SupervisorLog.open(backend, home), damaged(SUPERVISOR_LOG, 2, 'request.failed'));
});

t.test('a damaged city lifecycle record stops the city replay with the city log and seq', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gc-damaged-'));
  const backend = backendWith(cityLogFile(dir), [
    { type: 'city.created', actor: 'gc', subject: 'alpha', payload: { name: 'alpha' } },
  ]);
  await t.rejects(
    CityActor.open(backend, { name: 'alpha', path: dir }, () => undefined),
    damaged('alpha', 1, 'city.created'),
  );
});

t.test(
  'a bead.created whose payload lacks `bead` stops the bead fold with the city log and seq',
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'gc-damaged-'));
    const location = { name: 'alpha', file: cityLogFile(dir) };
    const backend = backendWith(location.file, [
      { type: 'city.created', actor: 'gc', subject: 'alpha', payload: { name: 'alpha', path: dir } },
      { type: 'bead.created', actor: 'gc', subject: 'al-1', payload: {} },
    ]);
    const journal = await backend.open(location);
    await t.rejects(
      startBeadService({ name: 'alpha', path: dir, journal }, { snapshot: false }),
      damaged('alpha', 2, 'bead.created'),
    );
  },
);

t.test('a bead without an id cannot be folded either', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gc-damaged-'));
  const location = { name: 'alpha', file: cityLogFile(dir) };
  const backend = backendWith(location.file, [
    { type: 'bead.updated', actor: 'gc', subject: 'al-1', payload: { bead: { title: 'no id' } } },
  ]);
  const journal = await backend.open(location);
  await t.rejects(
    startBeadService({ name: 'alpha', path: dir, journal }, { snapshot: false }),
    damaged('alpha', 1, 'bead.updated'),
  );
});

t.test('a damaged record is logged as an error with its log and seq, and rethrown', async (t) => {
  const { logger, records } = recordingLogger();
  const err = new DamagedRecordError('alpha', 7, 'bead.created', ['/bead: required']);
  t.throws(
    () =>
      foldingReported(() => {
        throw err;
      }, logger),
    err,
  );
  t.match(records, [
    { level: 50, log: 'alpha', seq: 7, type: 'bead.created', msg: 'damaged record: folding stopped' },
  ]);
  const other = new Error('not damage');
  t.throws(
    () =>
      foldingReported(() => {
        throw other;
      }, logger),
    other,
  );
  t.equal(records.length, 1, 'other errors are not reported as damage');
});

t.test('records of other kinds, and intact ones, replay as before', async (t) => {
  const home = await mkdtemp(join(tmpdir(), 'gc-damaged-'));
  const backend = backendWith(supervisorLogFile(home), [
    { type: 'supervisor.started', actor: 'gc', subject: 'supervisor', payload: { previous_exit: 'unknown' } },
    { type: 'custom.thing', actor: 'someone', payload: 'not an object' },
    { type: 'supervisor.stopped', actor: 'gc', subject: 'supervisor', payload: {} },
  ]);
  const log = await SupervisorLog.open(backend, home);
  t.equal(log.previousExit, 'clean');
});
