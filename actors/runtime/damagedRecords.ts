import { DamagedRecordError } from '../../schemas/eventDecode.ts';
import { defaultLogger, type Logger } from './logger.ts';

export { DamagedRecordError };

/**
 * Runs a fold of recorded events (replay, catch-up) and reports a damaged record it meets: logged as an
 * error with its log and seq, then rethrown. Folding stops there, on purpose: an actor that skipped the
 * record would run on state its log does not support (docs/compatibility.md). Other errors pass through.
 */
export function foldingReported<T>(fold: () => T, logger: Logger = defaultLogger()): T {
  try {
    return fold();
  } catch (err) {
    if (err instanceof DamagedRecordError) {
      logger.error(
        { err, log: err.log, seq: err.seq, type: err.type, problems: err.problems },
        'damaged record: folding stopped',
      );
    }
    throw err;
  }
}
