/**
 * What a replay needs of most log lines, read straight from their bytes instead of parsed: a replay of a
 * 1M-event log spent most of its time building objects that `JSON.parse` made only to be dropped.
 *
 * Only lines that are certainly JSON (the journal's index holds them: its open scan checked them, or it
 * wrote them) are given here, and the read is conservative: whatever it cannot settle exactly as
 * `JSON.parse` plus the catalogue check would (escapes, whitespace, repeated keys, a `bead.created` with
 * metadata, whose whole bead a replay needs, and any payload that is not plainly valid) answers undefined, and the caller
 * parses the line. So a damaged record always goes the parsed way, and is reported there.
 */

/** A line read from its bytes: its seq, its `bead.*` state type (undefined: another family's event) and bead id. */
export interface BeadLine {
  seq: number;
  type: 'bead.created' | 'bead.updated' | 'bead.closed' | 'bead.deleted' | undefined;
  /**
   * The bead's id (a `bead.*` line only); '' when `num` stands for it.
   */
  id: string;
  /**
   * The `<n>` of an id that is exactly `<prefix>-<n>` for the prefix asked (as `idNumber` reads it), else -1:
   * such an id is not made into a string, the line's bytes say all of it.
   */
  num: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const ZERO = 0x30;
const NINE = 0x39;
const DASH = 0x2d;
/** 15 digits are always below 2^53, so the seq read here is exactly the number JSON.parse reads. */
const MAX_SEQ_DIGITS = 15;

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));
const KEY_SEQ = bytes('seq');
const KEY_TYPE = bytes('type');
const KEY_PAYLOAD = bytes('payload');
const KEY_BEAD = bytes('bead');
const KEY_ID = bytes('id');
const KEY_ISSUE_TYPE = bytes('issue_type');
const KEY_METADATA = bytes('metadata');
const BEAD_DOT = bytes('bead.');
const STATE_TYPES = [
  ['bead.created', bytes('bead.created')],
  ['bead.updated', bytes('bead.updated')],
  ['bead.closed', bytes('bead.closed')],
  ['bead.deleted', bytes('bead.deleted')],
] as const;

/** True when `buf[start, end)` holds exactly `word`. */
function equals(buf: Buffer, start: number, end: number, word: Uint8Array): boolean {
  if (end - start !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (buf[start + k] !== word[k]) return false;
  return true;
}

/** Set by {@link skipString}: the string it last skipped holds an escape. */
let escaped = false;

/**
 * Where the string whose opening quote is at `i` ends (past its closing quote), or -1 when unterminated;
 * sets {@link escaped}. A byte loop: most strings here are a few bytes, shorter than a native call's cost.
 */
function skipString(buf: Buffer, i: number, end: number): number {
  escaped = false;
  for (let k = i + 1; k < end; k++) {
    const c = buf[k];
    if (c === QUOTE) return k + 1;
    if (c === BACKSLASH) {
      escaped = true;
      k++;
    }
  }
  return -1;
}

/** Where the value at `i` ends, or -1. Numbers and literals run to the next `,`, `}` or `]`. */
function skipValue(buf: Buffer, i: number, end: number): number {
  const c = buf[i];
  if (c === QUOTE) return skipString(buf, i, end);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    while (i < end) {
      const b = buf[i]!;
      if (b === QUOTE) {
        i = skipString(buf, i, end);
        if (i < 0) return -1;
        continue;
      }
      if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        if (--depth === 0) return i + 1;
      }
      i++;
    }
    return -1;
  }
  while (i < end && buf[i] !== COMMA && buf[i] !== CLOSE_OBJECT && buf[i] !== CLOSE_ARRAY) i++;
  return i < end ? i : -1;
}

const TOP = 0;
const PAYLOAD = 1;
const BEAD = 2;

/**
 * Walks the members of the object whose `{` is at `i` at `level` (the event, its payload, the bead),
 * handing each to that level's reader, which answers where the value ends (or -1 to give up). Answers
 * where the object ends, or -1 for anything but a plain compact object (escaped keys, whitespace).
 */
function members(buf: Buffer, i: number, end: number, level: number): number {
  if (buf[i] !== OPEN_OBJECT) return -1;
  i++;
  if (buf[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    if (buf[i] !== QUOTE) return -1;
    const keyEnd = skipString(buf, i, end);
    if (keyEnd < 0 || escaped || buf[keyEnd] !== COLON) return -1;
    const key = i + 1;
    const value = keyEnd + 1;
    if (level === TOP) i = topMember(buf, key, keyEnd - 1, value, end);
    else if (level === PAYLOAD) i = payloadMember(buf, key, keyEnd - 1, value, end);
    else i = beadMember(buf, key, keyEnd - 1, value, end);
    if (i < 0 || i >= end) return -1;
    const c = buf[i++];
    if (c === CLOSE_OBJECT) return i;
    if (c !== COMMA) return -1;
  }
}

// Scratch state of one call (calls never interleave: nothing here yields).
let seq = -1;
let typeStart = -1;
let typeEnd = -1;
/** The payload was seen, and is exactly `{"bead":{…}}` with a plain string id and a string issue_type if any. */
let payloadSeen = false;
let payloadOk = false;
let idStart = -1;
let idEnd = -1;
let issueType = false;
/** The bead has a `metadata` member (where a keyed create records its key). */
let metadata = false;

function topMember(buf: Buffer, key: number, keyEnd: number, value: number, end: number): number {
  if (equals(buf, key, keyEnd, KEY_SEQ)) {
    if (seq !== -1) return -1;
    let i = value;
    let n = 0;
    for (let c = buf[i]!; c >= ZERO && c <= NINE; c = buf[++i]!) n = n * 10 + (c - ZERO);
    const digits = i - value;
    if (digits === 0 || digits > MAX_SEQ_DIGITS || (digits > 1 && buf[value] === ZERO)) return -1;
    seq = n;
    return i;
  }
  if (equals(buf, key, keyEnd, KEY_TYPE)) {
    if (typeStart !== -1 || buf[value] !== QUOTE) return -1;
    const close = skipString(buf, value, end);
    if (close < 0 || escaped) return -1;
    typeStart = value + 1;
    typeEnd = close - 1;
    return close;
  }
  if (equals(buf, key, keyEnd, KEY_PAYLOAD)) {
    if (payloadSeen) return -1;
    payloadSeen = true;
    // Read in the one walk over it; anything unusual is only "not plainly a bead payload".
    if (buf[value] === OPEN_OBJECT) {
      payloadOk = true;
      const close = members(buf, value, end, PAYLOAD);
      if (close >= 0) return close;
    }
    payloadOk = false;
  }
  return skipValue(buf, value, end);
}

function payloadMember(buf: Buffer, key: number, keyEnd: number, value: number, end: number): number {
  if (payloadOk && idStart === -1 && !issueType && equals(buf, key, keyEnd, KEY_BEAD)) {
    const close = members(buf, value, end, BEAD);
    if (close >= 0 && idStart !== -1) return close;
  }
  payloadOk = false;
  return skipValue(buf, value, end);
}

function beadMember(buf: Buffer, key: number, keyEnd: number, value: number, end: number): number {
  const close = skipValue(buf, value, end);
  if (close < 0) return -1;
  if (equals(buf, key, keyEnd, KEY_ID)) {
    if (idStart !== -1 || buf[value] !== QUOTE || escaped) return -1;
    // Non-ASCII ids are left to the parser, so the decoding is the line's own.
    for (let k = value + 1; k < close - 1; k++) if (buf[k]! >= 0x80) return -1;
    idStart = value + 1;
    idEnd = close - 1;
  } else if (equals(buf, key, keyEnd, KEY_ISSUE_TYPE)) {
    if (issueType || buf[value] !== QUOTE) return -1;
    issueType = true;
  } else if (equals(buf, key, keyEnd, KEY_METADATA)) {
    metadata = true;
  }
  return close;
}

/**
 * The seq, state type and bead id of the log line `buf[start, end)`, when its bytes settle them exactly
 * (see above); undefined when the line must be parsed. An id that is `<prefix>-<n>` for `prefix` (the
 * store's, as latin1 bytes) comes back as its number alone. The answer is reused by the next call. Pure
 * otherwise; allocates at most the id.
 */
export function beadLineOf(
  buf: Buffer,
  start: number,
  end: number,
  prefix?: Uint8Array,
): BeadLine | undefined {
  seq = typeStart = typeEnd = idStart = idEnd = -1;
  payloadSeen = payloadOk = issueType = metadata = false;
  const top = members(buf, start, end, TOP);
  if (top !== end || seq === -1 || typeStart === -1) return undefined;
  // Not a bead.* type at all: another family's event, which the model only counts.
  if (!startsWith(buf, typeStart, typeEnd, BEAD_DOT)) return answer(undefined, '');
  const state = STATE_TYPES.find(([, word]) => equals(buf, typeStart, typeEnd, word))?.[0];
  // Other bead.* types (claim_rejected…) are notices.
  if (state === undefined) return answer(undefined, '');
  // The catalogue's BeadEventPayload: exactly `{"bead":{…}}`, the bead with a string id.
  if (!payloadOk || idStart === -1) return undefined;
  // A create with metadata may record an idempotency key: the replay needs that bead whole.
  if (state === 'bead.created' && metadata) return undefined;
  const num = prefix ? idNumberOf(buf, idStart, idEnd, prefix) : -1;
  return answer(state, num < 0 ? buf.toString('latin1', idStart, idEnd) : '', num);
}

/** The `<n>` of the id `buf[start, end)` when it is `<prefix>-<n>` with `<n>` as `idNumber` takes it; -1 otherwise. */
function idNumberOf(buf: Buffer, start: number, end: number, prefix: Uint8Array): number {
  const digits = start + prefix.length + 1;
  const count = end - digits;
  if (count < 1 || count > MAX_SEQ_DIGITS || buf[digits] === ZERO || buf[digits - 1] !== DASH) return -1;
  for (let k = 0; k < prefix.length; k++) if (buf[start + k] !== prefix[k]) return -1;
  let n = 0;
  for (let i = digits; i < end; i++) {
    const c = buf[i]!;
    if (c < ZERO || c > NINE) return -1;
    n = n * 10 + (c - ZERO);
  }
  return n;
}

function startsWith(buf: Buffer, start: number, end: number, word: Uint8Array): boolean {
  return end - start >= word.length && equals(buf, start, start + word.length, word);
}

const scratch: BeadLine = { seq: 0, type: undefined, id: '', num: -1 };

/** True for what {@link beadLineOf} answered (never for a parsed event, whatever its keys). */
export const isBeadLine = (record: object): record is BeadLine => record === scratch;

function answer(type: BeadLine['type'], id: string, num = -1): BeadLine {
  scratch.seq = seq;
  scratch.type = type;
  scratch.id = id;
  scratch.num = num;
  return scratch;
}
