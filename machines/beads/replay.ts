import type { JournalEvent } from '../../schemas/event.ts';
import { isBeadLine, type BeadLine } from './beadLine.ts';
import { beadOf } from './evolve.ts';
import { isBeadStateEvent, type BeadStateEventType } from './events.ts';
import { formatId, idNumber } from './ids.ts';
import { indexAll } from './indexes.ts';
import { IDEMPOTENCY_KEY, REQUEST_HASH_KEY, type BeadModel, type StoredBead } from './model.ts';

/** What the replay knows of a live bead between its passes: where its newest record is, not the bead. */
interface Pending {
  id: string;
  ordinal: number;
  /** Byte offset of the line of the bead's newest `bead.*` record. */
  offset: number;
  /** Filled by the second pass. */
  bead: StoredBead | undefined;
}

/**
 * Folds a whole log into an empty model in two passes, to the same model `evolve` builds event by event,
 * at a fraction of the garbage. Every `bead.*` record carries the whole bead after its change, so only
 * each bead's newest record decides its state:
 *
 * 1. `note` every event in order: each `bead.*` record is decoded and checked (a damaged one throws, as in
 *    `evolve`), then only where its line is kept, never the bead. Most lines need not even be parsed: their
 *    bytes settle their seq, type and bead id (see `beadLineOf`). The creation order, the id counter and
 *    the idempotency records, which depend on the history, are built as `evolve` builds them.
 * 2. `fill` the records at the {@link BeadReplay.wanted} offsets (each live bead's newest, read and
 *    parsed again), then `finish`: the beads enter the model in creation order, indexed once.
 *
 * Folding event by event kept each bead object until a later record replaced it: long enough to be copied
 * out of the young generation, field by field, and collected as old garbage (a third of a 1M-event
 * start-up, and keeping the line's text instead cost as much). Here the objects of the first pass die
 * young; reading the file again is cheap, parsing the live beads again costs less than that garbage did.
 * Deterministic and free of I/O; mutates `model`.
 */
export class BeadReplay {
  readonly #model: BeadModel;
  readonly #log: string;
  /**
   * Live beads by key (see `#key`); Map order is the model's creation order (a deleted and re-created bead
   * moves last).
   */
  readonly #beads = new Map<number | string, Pending>();
  #seq: number;
  #wanted: Float64Array | undefined;
  #next = 0;
  #filled = 0;

  /** @throws Error when `model` is not empty: a replay starts from nothing (a snapshot's model is folded by `evolve`). */
  constructor(model: BeadModel, log: string) {
    if (model.seq !== 0 || model.beads.size !== 0) throw new Error('a replay starts from an empty model');
    this.#model = model;
    this.#log = log;
    this.#seq = model.seq;
  }

  /** The seq of the last event noted. */
  get seq(): number {
    return this.#seq;
  }

  /**
   * First pass: the event stored in the line at byte `offset`, parsed or read from its bytes. Events come
   * in seq order; one at or below the last is ignored.
   * @throws DamagedRecordError when a `bead.*` payload is not a bead with an id; nothing of it is noted.
   */
  note(record: JournalEvent | BeadLine, offset: number): void {
    if (record.seq <= this.#seq) return;
    if (isBeadLine(record)) {
      if (record.type !== undefined) {
        const key = record.num < 0 ? record.id : record.num;
        this.#noteState(record.type, key, record.seq, offset, undefined);
      }
    } else if (isBeadStateEvent(record.type)) {
      const bead = beadOf(record, record.type, this.#log);
      this.#noteState(record.type, this.#key(bead.id), record.seq, offset, bead);
    }
    this.#seq = record.seq;
  }

  /**
   * A bead's key here: the number of an id of this store's `<prefix>-<n>` form (what nearly every id is, and
   * what a line's bytes give without making a string), the id itself otherwise. The two never meet: only a
   * canonical id becomes a number, and a Map tells numbers from strings.
   */
  #key(id: string): number | string {
    return idNumber(id, this.#model.prefix) ?? id;
  }

  #noteState(
    type: BeadStateEventType,
    key: number | string,
    seq: number,
    offset: number,
    bead?: StoredBead,
  ): void {
    const known = this.#beads.get(key);
    if (type === 'bead.deleted') {
      if (known) this.#delete(key);
    } else if (known) {
      known.offset = offset;
    } else {
      const id = typeof key === 'number' ? formatId(this.#model.prefix, key) : key;
      this.#beads.set(key, { id, ordinal: seq, offset, bead: undefined });
      this.#model.indexes.order.push(id, seq);
      // Only a bead new to the model can carry an id the counter has not passed (a number key is that id's n).
      if (typeof key === 'number' && key >= this.#model.nextNumber) this.#model.nextNumber = key + 1;
      // A create read from its bytes has no metadata (beadLineOf leaves those), so records no key.
      if (type === 'bead.created' && bead) this.#recordIdempotency(bead);
    }
  }

  /**
   * Between the passes: true for the offset of a line the second pass must `fill` (a live bead's newest
   * record). Offsets must be asked in increasing order, as a forward read meets them.
   */
  wanted(offset: number): boolean {
    const wanted = (this.#wanted ??= this.#offsets());
    while (this.#next < wanted.length && wanted[this.#next]! < offset) this.#next++;
    return this.#next < wanted.length && wanted[this.#next] === offset;
  }

  /**
   * Second pass: the event at a {@link wanted} offset, parsed again (its record was checked by `note`).
   * @throws Error when it is not the record `note` kept there (the log changed between the passes).
   */
  fill(event: JournalEvent, offset: number): void {
    const bead = (event.payload as { bead?: StoredBead } | undefined)?.bead;
    const pending = bead === undefined ? undefined : this.#beads.get(this.#key(bead.id));
    if (!pending || pending.offset !== offset || pending.bead !== undefined)
      throw new Error(`replay of log ${this.#log}: seq ${event.seq} is not the record its first pass kept`);
    pending.bead = bead;
    this.#filled++;
  }

  /**
   * Puts the beads into the model, in creation order, and indexes them; the model is then at the last
   * event noted.
   * @throws Error when a kept record was not filled (the log changed between the passes).
   */
  finish(): void {
    if (this.#filled !== this.#beads.size)
      throw new Error(
        `replay of log ${this.#log}: ${this.#beads.size - this.#filled} beads were not read again`,
      );
    const { beads, indexes } = this.#model;
    for (const { id, bead, ordinal } of this.#beads.values()) beads.set(id, { bead: bead!, ordinal });
    this.#beads.clear();
    indexAll(indexes, beads);
    this.#model.seq = this.#seq;
  }

  #delete(key: number | string): void {
    this.#beads.delete(key);
    this.#model.indexes.order.drop((live, ordinal) => this.#beads.get(this.#key(live))?.ordinal === ordinal);
  }

  #recordIdempotency(bead: StoredBead): void {
    const key = bead.metadata?.[IDEMPOTENCY_KEY];
    const hash = bead.metadata?.[REQUEST_HASH_KEY];
    const records = this.#model.idempotency;
    if (key && hash && !records.has(key)) records.set(key, { hash, bead });
  }

  /** The offsets of the live beads' newest records, ascending. */
  #offsets(): Float64Array {
    const offsets = new Float64Array(this.#beads.size);
    let i = 0;
    for (const pending of this.#beads.values()) offsets[i++] = pending.offset;
    return offsets.sort();
  }
}
