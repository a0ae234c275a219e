import type { JournalEvent } from '../../schemas/event.ts';
import { payloadAs } from '../../schemas/eventDecode.ts';
import { isBeadStateEvent, type BeadStateEventType } from './events.ts';
import { idNumber } from './ids.ts';
import { reindexBead } from './indexes.ts';
import { IDEMPOTENCY_KEY, REQUEST_HASH_KEY, type BeadModel, type StoredBead } from './model.ts';

/**
 * Folds one journal event into the model: `bead.*` events replace (or remove) their bead, every event
 * advances `seq`. Events must come in seq order; one at or below `model.seq` is ignored, so folding an
 * event twice is harmless.
 *
 * Deterministic and free of I/O, but it mutates `model` in place: a city folds up to millions of events
 * at start-up, and copying maps per event would blow that budget. Callers that need the previous state
 * must not share the model.
 * @throws DamagedRecordError when a `bead.*` payload of log `log` is not a bead with an id (the model then
 *   stays at the event before it).
 */
export function evolve(model: BeadModel, event: JournalEvent, log: string): void {
  if (event.seq <= model.seq) return;
  if (!isBeadStateEvent(event.type)) {
    model.seq = event.seq;
    return;
  }
  const bead = beadOf(event, event.type, log);
  model.seq = event.seq;
  if (event.type === 'bead.deleted') {
    remove(model, bead.id);
    return;
  }
  const previous = model.beads.get(bead.id);
  model.beads.set(bead.id, { bead, ordinal: previous?.ordinal ?? event.seq });
  if (!previous) model.indexes.order.push(bead.id, event.seq);
  reindexBead(model.indexes, bead.id, previous?.bead, bead);
  if (previous) return;
  // Only a bead new to the model can carry an id the counter has not passed.
  const n = idNumber(bead.id, model.prefix);
  if (n !== undefined && n >= model.nextNumber) model.nextNumber = n + 1;
  if (event.type === 'bead.created') recordIdempotency(model, bead);
}

/** Folds events in order. Same contract as {@link evolve}. */
export function evolveAll(model: BeadModel, events: Iterable<JournalEvent>, log: string): void {
  for (const event of events) evolve(model, event, log);
}

/**
 * Folds `events` like {@link evolveAll} and answers how to take them back out (last first), for a
 * decision applied before it is durable (group commit). Deletions cannot be taken back (creation order
 * compacts): callers apply only decisions without `bead.deleted`.
 * @throws DamagedRecordError as {@link evolve}; the events folded before it are taken back first.
 */
export function evolveUndoable(model: BeadModel, events: readonly JournalEvent[], log: string): () => void {
  const undos: (() => void)[] = [];
  const undoAll = () => {
    for (const undo of undos.reverse()) undo();
  };
  try {
    for (const event of events) undos.push(evolveOne(model, event, log));
  } catch (err) {
    undoAll();
    throw err;
  }
  return undoAll;
}

function evolveOne(model: BeadModel, event: JournalEvent, log: string): () => void {
  const { seq, nextNumber } = model;
  if (event.seq <= seq) return () => undefined;
  if (!isBeadStateEvent(event.type)) {
    model.seq = event.seq;
    return () => void (model.seq = seq);
  }
  if (event.type === 'bead.deleted')
    throw new Error('a bead deletion cannot be applied before it is durable');
  const { id } = beadOf(event, event.type, log);
  const previous = model.beads.get(id);
  const keysBefore = model.idempotency.size;
  evolve(model, event, log);
  return () => {
    const current = model.beads.get(id);
    if (previous) {
      model.beads.set(id, previous);
      reindexBead(model.indexes, id, current?.bead, previous.bead);
    } else {
      model.beads.delete(id);
      reindexBead(model.indexes, id, current?.bead, undefined);
      model.indexes.order.pop();
      const recorded = current?.bead.metadata?.[IDEMPOTENCY_KEY];
      if (recorded && model.idempotency.size > keysBefore) model.idempotency.delete(recorded);
    }
    model.nextNumber = nextNumber;
    model.seq = seq;
  };
}

/**
 * The bead of a `bead.*` payload, decoded through the catalogue; the model also needs its id.
 * @throws DamagedRecordError as {@link evolve}.
 */
export function beadOf(event: JournalEvent, type: BeadStateEventType, log: string): StoredBead {
  const { bead } = payloadAs(log, event, type, (p) =>
    typeof p.bead.id === 'string' ? undefined : '/bead/id: a folded bead needs its id',
  );
  return bead as StoredBead;
}

function remove(model: BeadModel, id: string): void {
  const previous = model.beads.get(id);
  if (!previous) return;
  model.beads.delete(id);
  reindexBead(model.indexes, id, previous.bead, undefined);
  model.indexes.order.drop((live, ordinal) => model.beads.get(live)?.ordinal === ordinal);
}

function recordIdempotency(model: BeadModel, bead: StoredBead): void {
  const key = bead.metadata?.[IDEMPOTENCY_KEY];
  const hash = bead.metadata?.[REQUEST_HASH_KEY];
  if (key && hash && !model.idempotency.has(key)) model.idempotency.set(key, { hash, bead });
}
