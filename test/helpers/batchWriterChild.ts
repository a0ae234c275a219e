// A writer process for the crash case of test/conformance/batchCases.ts: appends three-record batches
// through a log runtime as fast as it can, printing `ack` once each is stored, until it is killed.
// argv: file <log file> | jetstream <servers> <prefix> <log file>
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import { JetStreamJournalBackend } from '../../actors/runtime/journal/jetstreamJournal.ts';
import type { JournalBackend } from '../../actors/runtime/journal/journal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import { recordOf } from '../../machines/recorded.ts';
import type { EventDraft } from '../../schemas/event.ts';

const [kind, ...rest] = process.argv.slice(2);
let backend: JournalBackend;
let file: string;
if (kind === 'file') {
  backend = new FileJournalBackend({ warn: () => undefined });
  file = rest[0]!;
} else {
  backend = new JetStreamJournalBackend({ servers: rest[0]!, prefix: rest[1]! });
  file = rest[2]!;
}
const journal = await backend.open({ name: 'crash', file });
const runtime = new LogRuntime(journal);
await runtime.catchUp();
for (let k = 0; ; k++) {
  const records = [0, 1, 2].map((i) =>
    recordOf({ type: 'batch.part', actor: 'tester', payload: { k, i } } as unknown as EventDraft),
  );
  await runtime.run(() => ({ records, commit: () => undefined }));
  process.stdout.write('ack\n');
}
