import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Test } from 'tap';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import { JetStreamJournalBackend } from '../../actors/runtime/journal/jetstreamJournal.ts';
import type { Journal, JournalBackend } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournalBackend } from '../../actors/runtime/journal/memoryJournal.ts';
import { withJetStream } from './nats.ts';

/** Opens logs by name on one backend, for stream tests that run on every backend. */
export type OpenLog = (name: string) => Promise<Journal>;

/** A journal backend the stream tests run against: it sets up `t`'s backend (and tears it down). */
export interface BackendCase {
  name: 'memory' | 'file' | 'jetstream';
  /** Resolves undefined when the backend cannot run here (the subtest is then planned as skipped). */
  setup(t: Test): Promise<OpenLog | undefined>;
}

const opener = (backend: JournalBackend, root: string): OpenLog => {
  return (name) => backend.open({ name, file: join(root, name, '.gc', 'events.jsonl') });
};

export const BACKEND_CASES: readonly BackendCase[] = [
  { name: 'memory', setup: async () => opener(new MemoryJournalBackend(), '/mem') },
  {
    name: 'file',
    setup: async (t) => {
      const backend = new FileJournalBackend();
      t.teardown(() => backend.close());
      return opener(backend, t.testdir());
    },
  },
  {
    name: 'jetstream',
    setup: async (t) => {
      const nats = await withJetStream(t);
      if (!nats) return undefined;
      const prefix = `t${randomBytes(4).toString('hex')}`;
      const backend = new JetStreamJournalBackend({ servers: nats.url, prefix });
      t.teardown(() => backend.close());
      return opener(backend, `/gc-test/${prefix}`);
    },
  },
];
