import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startBeadService } from '../../actors/beads/startBeadService.ts';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import { runSupervisor } from '../../http/main.ts';
import { fakeHost } from '../helpers/supervisor.ts';
import { recordingLogger } from '../helpers/recordingLogger.ts';

const tmp = (t: Test): string => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-logger-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

t.test('Fastify and the actors log through the one logger runSupervisor is given', async (t) => {
  const home = tmp(t);
  // A torn last line in the supervisor's own log: the file journal warns while recovering it.
  writeFileSync(join(home, 'events.jsonl'), '{"seq":1,"type":"supervisor.started","ts":"2025-');
  const { logger, records } = recordingLogger();
  const running = await runSupervisor(loadConfig({ GC_HOME: home, GC_PORT: '0' }), {
    host: fakeHost(home),
    logger,
  });
  t.teardown(() => running.close());
  t.equal(running.logger, logger);
  t.match(
    records.find((r) => /torn last line/.test(String(r.msg))),
    { level: 40, name: 'gc-supervisor', msg: /events\.jsonl/ },
    'the journal warning is a structured record',
  );
  t.match(
    records.find((r) => String(r.msg).startsWith('Server listening at')),
    { level: 30, name: 'gc-supervisor', msg: `Server listening at ${running.url}` },
    "Fastify's own line is a record of the same logger",
  );
  await (await fetch(`${running.url}/health`)).text();
  t.notOk(
    records.some((r) => r.msg === 'incoming request'),
    'no line per request',
  );
});

t.test('a bead store set-aside snapshot is a warning through the logger it is given', async (t) => {
  const dir = tmp(t);
  mkdirSync(join(dir, '.gc'));
  writeFileSync(join(dir, '.gc', 'beads.snapshot.jsonl'), 'not a snapshot\n');
  const backend = new FileJournalBackend();
  const journal = await backend.open({ name: 'alpha', file: join(dir, 'events.jsonl') });
  t.teardown(() => backend.close());
  const { logger, records } = recordingLogger();
  const beads = await startBeadService({ name: 'alpha', path: dir, journal }, { logger });
  await beads.stop();
  t.match(records, [
    { level: 40, city: 'alpha', err: { message: /setting aside snapshot/, stack: String }, msg: String },
  ]);
});
