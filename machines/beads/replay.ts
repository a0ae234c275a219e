import type { JournalEvent } from '../../schemas/event.ts';
import { isBeadLine, type BeadLine } from './beadLine.ts';
import { beadOf } from './evolve.ts';
import { isBeadStateEvent, type BeadStateEventType } from './events.ts';
import { formatId, idNumber } from './ids.ts';
import { indexAll } from './indexes.ts';
import { IDEMPOTENCY_KEY, REQUEST_HASH_KEY, type BeadModel, type StoredBead } from './model.ts';

/** What the replay knows of a live bead kept in the Map (see {@link BeadReplay}): where its newest record is. */
interface Pending {
  ordinal: number;
  /** Byte offset of the line of the bead's newest `bead.*` record. */
  offset: number;
  /** Filled by the second pass. */
  bead: StoredBead | undefined;
}

/** Slots the dense arrays start with; they double as numbers grow. */
const INITIAL_SLOTS = 1024;
/**
 * An id's number gets a dense slot when it is below the seq of its first record plus this. The store gives
 * numbers in order, one per create, so its own ids always qualify; a larger number (an id written by hand)
 * goes to the Map, and the arrays never outgrow the log.
 */
const DENSE_SLACK = 1024;

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
   * Live beads whose ids are `<prefix>-<n>` with a small n (nearly all), by n: the creation ordinal (0: none
   * live) and the offset of the newest record. A Map of objects cost a fifth of a 1M-event start-up in
   * hashing and in copying its objects out of the young generation.
   */
  #ordinals = new Float64Array(INITIAL_SLOTS);
  #offsets = new Float64Array(INITIAL_SLOTS);
  /** Their beads, by n, filled by the second pass. */
  #filledBeads: (StoredBead | undefined)[] = [];
  /** The other live beads, by key (see `#key`). */
  readonly #others = new Map<number | string, Pending>();
  /**
   * Every bead created, by key and ordinal, in creation order: the model's order (a deleted and re-created
   * bead moves last). An entry whose ordinal is no longer its key's was deleted since.
   */
  readonly #createdKeys: (number | string)[] = [];
  readonly #createdIds: string[] = [];
  readonly #createdOrdinals: number[] = [];
  #live = 0;
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

  /** True when the live bead of `key` has a dense slot. */
  #isDense(key: number | string): key is number {
    return typeof key === 'number' && key < this.#ordinals.length && this.#ordinals[key] !== 0;
  }

  /** The creation ordinal of the live bead of `key`, 0 when none is live. */
  #ordinalOf(key: number | string): number {
    return this.#isDense(key) ? this.#ordinals[key]! : (this.#others.get(key)?.ordinal ?? 0);
  }

  #noteState(
    type: BeadStateEventType,
    key: number | string,
    seq: number,
    offset: number,
    bead?: StoredBead,
  ): void {
    if (this.#isDense(key)) {
      if (type === 'bead.deleted') this.#delete(key);
      else this.#offsets[key] = offset;
      return;
    }
    const known = this.#others.get(key);
    if (type === 'bead.deleted') {
      if (known) this.#delete(key);
    } else if (known) {
      known.offset = offset;
    } else {
      this.#create(key, seq, offset);
      // A create read from its bytes has no metadata (beadLineOf leaves those), so records no key.
      if (type === 'bead.created' && bead) this.#recordIdempotency(bead);
    }
  }

  #create(key: number | string, seq: number, offset: number): void {
    if (typeof key === 'number' && key < seq + DENSE_SLACK) {
      if (key >= this.#ordinals.length) this.#grow(key + 1);
      this.#ordinals[key] = seq;
      this.#offsets[key] = offset;
    } else {
      this.#others.set(key, { ordinal: seq, offset, bead: undefined });
    }
    this.#live++;
    const id = typeof key === 'number' ? formatId(this.#model.prefix, key) : key;
    this.#createdKeys.push(key);
    this.#createdIds.push(id);
    this.#createdOrdinals.push(seq);
    this.#model.indexes.order.push(id, seq);
    // Only a bead new to the model can carry an id the counter has not passed (a number key is that id's n).
    if (typeof key === 'number' && key >= this.#model.nextNumber) this.#model.nextNumber = key + 1;
  }

  #grow(slots: number): void {
    let size = this.#ordinals.length * 2;
    while (size < slots) size *= 2;
    const ordinals = new Float64Array(size);
    const offsets = new Float64Array(size);
    ordinals.set(this.#ordinals);
    offsets.set(this.#offsets);
    this.#ordinals = ordinals;
    this.#offsets = offsets;
  }

  /**
   * Between the passes: true for the offset of a line the second pass must `fill` (a live bead's newest
   * record). Offsets must be asked in increasing order, as a forward read meets them.
   */
  wanted(offset: number): boolean {
    const wanted = (this.#wanted ??= this.#wantedOffsets());
    while (this.#next < wanted.length && wanted[this.#next]! < offset) this.#next++;
    return this.#next < wanted.length && wanted[this.#next] === offset;
  }

  /**
   * Second pass: the event at a {@link wanted} offset, parsed again (its record was checked by `note`).
   * @throws Error when it is not the record `note` kept there (the log changed between the passes).
   */
  fill(event: JournalEvent, offset: number): void {
    const bead = (event.payload as { bead?: StoredBead } | undefined)?.bead;
    const key = bead === undefined ? undefined : this.#key(bead.id);
    let kept = false;
    if (key !== undefined && this.#isDense(key)) {
      kept = this.#offsets[key] === offset && this.#filledBeads[key] === undefined;
      if (kept) this.#filledBeads[key] = bead;
    } else {
      const pending = key === undefined ? undefined : this.#others.get(key);
      kept = pending !== undefined && pending.offset === offset && pending.bead === undefined;
      if (kept) pending!.bead = bead;
    }
    if (!kept)
      throw new Error(`replay of log ${this.#log}: seq ${event.seq} is not the record its first pass kept`);
    this.#filled++;
  }

  /**
   * Puts the beads into the model, in creation order, and indexes them; the model is then at the last
   * event noted.
   * @throws Error when a kept record was not filled (the log changed between the passes).
   */
  finish(): void {
    if (this.#filled !== this.#live)
      throw new Error(`replay of log ${this.#log}: ${this.#live - this.#filled} beads were not read again`);
    const { beads, indexes } = this.#model;
    const keys = this.#createdKeys;
    const ordinals = this.#createdOrdinals;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const ordinal = ordinals[i]!;
      let bead: StoredBead | undefined;
      if (this.#isDense(key)) {
        if (this.#ordinals[key] === ordinal) bead = this.#filledBeads[key];
      } else {
        const other = this.#others.get(key);
        if (other?.ordinal === ordinal) bead = other.bead;
      }
      if (bead) beads.set(this.#createdIds[i]!, { bead, ordinal });
    }
    this.#others.clear();
    this.#filledBeads = [];
    indexAll(indexes, beads);
    this.#model.seq = this.#seq;
  }

  #delete(key: number | string): void {
    if (this.#isDense(key)) this.#ordinals[key] = 0;
    else this.#others.delete(key);
    this.#live--;
    this.#model.indexes.order.drop((live, ordinal) => this.#ordinalOf(this.#key(live)) === ordinal);
  }

  #recordIdempotency(bead: StoredBead): void {
    const key = bead.metadata?.[IDEMPOTENCY_KEY];
    const hash = bead.metadata?.[REQUEST_HASH_KEY];
    const records = this.#model.idempotency;
    if (key && hash && !records.has(key)) records.set(key, { hash, bead });
  }

  /** The offsets of the live beads' newest records, ascending. */
  #wantedOffsets(): Float64Array {
    // Sized now, so filling it in file order (not number order) keeps it a plain array.
    this.#filledBeads = new Array<StoredBead | undefined>(this.#ordinals.length);
    const offsets = new Float64Array(this.#live);
    let i = 0;
    for (let n = 0; n < this.#ordinals.length; n++)
      if (this.#ordinals[n] !== 0) offsets[i++] = this.#offsets[n]!;
    for (const pending of this.#others.values()) offsets[i++] = pending.offset;
    return offsets.sort();
  }
}
