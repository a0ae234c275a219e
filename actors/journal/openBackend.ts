import type { SupervisorConfig } from '../config.ts';
import { FileJournalBackend } from './fileJournal.ts';
import { JetStreamJournalBackend } from './jetstreamJournal.ts';
import type { JournalBackend } from './journal.ts';

/**
 * The journal backend a supervisor runs on: JetStream when `config.natsUrl` is set, else the embedded file
 * backend. Opens no connection itself (the JetStream backend connects on its first `open`).
 */
export function openJournalBackend(
  config: Pick<SupervisorConfig, 'natsUrl'> & Partial<Pick<SupervisorConfig, 'natsPrefix'>>,
): JournalBackend {
  if (!config.natsUrl) return new FileJournalBackend();
  return new JetStreamJournalBackend({
    servers: config.natsUrl,
    ...(config.natsPrefix === undefined ? {} : { prefix: config.natsPrefix }),
  });
}
