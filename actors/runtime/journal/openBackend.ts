import { FileJournalBackend } from './fileJournal.ts';
import { JetStreamJournalBackend } from './jetstreamJournal.ts';
import type { JournalBackend } from './journal.ts';
import type { Logger } from '../logger.ts';

/** Where the logs live: the supervisor's settings that choose and shape the backend. */
export interface JournalBackendOptions {
  /** A NATS URL: the logs are JetStream streams; unset: the embedded file backend. */
  readonly natsUrl: string | undefined;
  readonly natsPrefix?: string;
  readonly natsReplicas?: number;
}

/**
 * The journal backend a supervisor runs on: JetStream when `config.natsUrl` is set, else the embedded file
 * backend. Opens no connection itself (the JetStream backend connects on its first `open`).
 */
export function openJournalBackend(config: JournalBackendOptions, logger?: Logger): JournalBackend {
  if (!config.natsUrl) return new FileJournalBackend(logger ? { logger } : {});
  return new JetStreamJournalBackend({
    servers: config.natsUrl,
    ...(config.natsPrefix === undefined ? {} : { prefix: config.natsPrefix }),
    ...(config.natsReplicas === undefined ? {} : { replicas: config.natsReplicas }),
  });
}
