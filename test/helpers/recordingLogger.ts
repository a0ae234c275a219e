import { pino, type Logger } from 'pino';

/** A pino logger (as the supervisor makes one) whose JSON lines are kept, parsed, in `records`. */
export function recordingLogger(): { logger: Logger; records: Array<Record<string, unknown>> } {
  const records: Array<Record<string, unknown>> = [];
  const logger = pino(
    { name: 'gc-supervisor' },
    { write: (line: string) => void records.push(JSON.parse(line)) },
  );
  return { logger, records };
}
