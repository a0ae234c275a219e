import type { SupervisorConfig } from '../../supervisor/supervisorConfig.ts';
import { FileJournalBackend } from './fileJournal.ts';
import { JetStreamJournalBackend } from './jetstreamJournal.ts';
import type { JournalBackend } from './journal.ts';
import type { Logger } from '../logger.ts';

/**
 * The journal backend a supervisor runs on: JetStream when `config.natsUrl` is set, else the embedded file
 * backend. Opens no connection itself (the JetStream backend connects on its first `open`).
 */
export function openJournalBackend(
  config: Pick<SupervisorConfig, 'natsUrl'> & Partial<Pick<SupervisorConfig, 'natsPrefix' | 'natsReplicas'>>,
  logger?: Logger,
): JournalBackend {
  if (!config.natsUrl) return new FileJournalBackend(logger ? { logger } : {});
  return new JetStreamJournalBackend({
    servers: config.natsUrl,
    ...(config.natsPrefix === undefined ? {} : { prefix: config.natsPrefix }),
    ...(config.natsReplicas === undefined ? {} : { replicas: config.natsReplicas }),
  });
}
