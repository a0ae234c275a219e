import type { Journal, JournalEvent } from '../runtime/journal/journal.ts';
import type { ReplayOptions } from '../runtime/journal/logReader.ts';
import { beadLineOf, type BeadLine } from '../../machines/beads/beadLine.ts';
import { DamagedRecordError } from '../runtime/damagedRecords.ts';
import type { BeadModel } from '../../machines/beads/model.ts';
import { BeadReplay } from '../../machines/beads/replay.ts';

/** The last event a replay folded: the snapshot anchor of the model it built. */
export interface ReplayedEvent {
  seq: number;
  type: string;
  ts: string;
}

/** A journal that hands a replay its events one at a time with their lines' offsets (the file journal). */
export interface ReplayableJournal extends Journal {
  replay<T extends { seq: number }>(
    afterSeq: number,
    toSeq: number,
    visit: (record: JournalEvent | T, offset: number) => void,
    options?: ReplayOptions<T>,
  ): Promise<void>;
}

/** True when `journal` can replay (see {@link ReplayableJournal}). This is a pure function. */
export const canReplay = (journal: Journal): journal is ReplayableJournal =>
  typeof (journal as Partial<ReplayableJournal>).replay === 'function';

/**
 * Folds `journal` up to its head into the empty `model` with a {@link BeadReplay}: one read of the log
 * that checks every record and notes where each bead's newest one is, a second that parses only those.
 * The model ends equal to an event-by-event fold of the same events.
 * Effects: reads the journal twice.
 * @returns the last event folded; undefined for an empty log.
 * @throws DamagedRecordError at a damaged `bead.*` record, the model then folded up to the event before
 *   it (as `evolve` leaves it); UnavailableError when the journal cannot be read (start-up fails then).
 */
export async function replayLog(
  model: BeadModel,
  journal: ReplayableJournal,
): Promise<ReplayedEvent | undefined> {
  const head = await journal.head();
  const replay = new BeadReplay(model, journal.name);
  // Ids of the store's own form come back as numbers (see beadLineOf); a prefix latin1 cannot hold gets none.
  const bytes = Buffer.from(model.prefix, 'latin1');
  const prefix = bytes.toString('latin1') === model.prefix ? new Uint8Array(bytes) : undefined;
  let damaged: DamagedRecordError | undefined;
  try {
    await journal.replay<BeadLine>(0, head, (record, offset) => replay.note(record, offset), {
      decode: (buf, start, end) => beadLineOf(buf, start, end, prefix),
    });
  } catch (err) {
    if (!(err instanceof DamagedRecordError)) throw err;
    damaged = err;
  }
  await journal.replay<never>(0, replay.seq, (event, offset) => replay.fill(event, offset), {
    wants: (offset) => replay.wanted(offset),
  });
  replay.finish();
  if (damaged) throw damaged;
  if (replay.seq === 0) return undefined;
  const [last] = await journal.list({ afterSeq: replay.seq - 1, limit: 1 });
  return last && { seq: last.seq, type: last.type, ts: last.ts };
}
