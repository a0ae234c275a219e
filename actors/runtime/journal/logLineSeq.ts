/**
 * The seq of a log line read straight from its bytes, so that opening a large log need not build a string
 * and a parsed object per line: that was most of the cost of an open.
 *
 * The fast path covers exactly what our writer emits (`JSON.stringify` of an event whose first key is
 * `seq`, compact, no whitespace) and checks the whole line against the JSON grammar, so a corrupt line is
 * still caught wherever its damage is. It is conservative: it answers {@link INCONCLUSIVE} whenever it
 * cannot be sure `JSON.parse(line).seq` would give the same number, and the caller then parses the line.
 */
export const INCONCLUSIVE = -1;

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** `{"seq":` */
const PREFIX = [0x7b, 0x22, 0x73, 0x65, 0x71, 0x22, 0x3a];
/** 15 digits are always below 2^53, so the seq read here is exactly the number JSON.parse reads. */
const MAX_SEQ_DIGITS = 15;
/** Deeper lines are left to JSON.parse; ours nest a few levels (event, payload, bead, labels). */
const MAX_DEPTH = 64;
/** Longer lines are left to JSON.parse, which may refuse a string this long, as a read would. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Scratch stack of {@link lineSeq}, which never yields, so one serves every call. */
const CLOSERS = new Uint8Array(MAX_DEPTH);

const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** The escapes JSON allows after a backslash, besides `\uXXXX`: `" \ / b f n r t`. */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;

const PLAIN = 0;
const END = 1;
const ESCAPE = 2;
const INVALID = 3;
/** What each byte means inside a string: control characters may not appear unescaped. */
const STRING_BYTE = new Uint8Array(256);
STRING_BYTE.fill(INVALID, 0, 0x20);
STRING_BYTE[QUOTE] = END;
STRING_BYTE[BACKSLASH] = ESCAPE;

/**
 * Where the JSON string opened just before `i` ends (past its closing quote), or -1 when it is not a
 * valid string. Bytes ≥ 0x80 pass as they are: decoding turns invalid UTF-8 into U+FFFD, which JSON.parse
 * accepts, so a full parse would accept them too. The line's newline is a control character, so a scan
 * never runs past it.
 */
function skipString(buf: Uint8Array, i: number): number {
  for (;;) {
    let kind: number;
    while ((kind = STRING_BYTE[buf[i++]!]!) === PLAIN);
    if (kind === END) return i;
    if (kind === INVALID) return -1;
    const e = buf[i++]!;
    if (e === 0x75) {
      if (!(isHex(buf[i]!) && isHex(buf[i + 1]!) && isHex(buf[i + 2]!) && isHex(buf[i + 3]!))) return -1;
      i += 4;
    } else if (SIMPLE_ESCAPE[e] !== 1) {
      return -1;
    }
  }
}

/** Where the JSON number starting at `i` ends, or -1 when it is not one. */
function skipNumber(buf: Uint8Array, i: number): number {
  if (buf[i] === MINUS) i++;
  if (buf[i] === ZERO) i++;
  else if (isDigit(buf[i]!)) while (isDigit(buf[++i]!));
  else return -1;
  if (buf[i] === DOT) {
    if (!isDigit(buf[++i]!)) return -1;
    while (isDigit(buf[++i]!));
  }
  if (buf[i] === 0x65 || buf[i] === 0x45) {
    i++;
    if (buf[i] === PLUS || buf[i] === MINUS) i++;
    if (!isDigit(buf[i]!)) return -1;
    while (isDigit(buf[++i]!));
  }
  return i;
}

/** Where `word` (true, false, null) at `i` ends, or -1. */
function skipWord(buf: Uint8Array, i: number, word: readonly number[]): number {
  for (const c of word) if (buf[i++] !== c) return -1;
  return i;
}
const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

/** True when a top-level key (between its quotes) could be `seq`: plainly, or spelt with escapes. */
function mayBeSeqKey(buf: Uint8Array, start: number, end: number): boolean {
  if (end - start === 3 && buf[start] === 0x73 && buf[start + 1] === 0x65 && buf[start + 2] === 0x71)
    return true;
  for (let i = start; i < end; i++) if (buf[i] === BACKSLASH) return true;
  return false;
}

/**
 * The seq of the line `buf[start, end)` when it is certainly a JSON object whose `seq` (the first key, not
 * repeated) is a non-negative integer; {@link INCONCLUSIVE} otherwise, including for every invalid line.
 * `buf[end]` must be the line's newline (it is what stops every scan). Pure; allocates nothing.
 */
export function lineSeq(buf: Uint8Array, start: number, end: number): number {
  if (buf[end] !== NEWLINE || end - start > MAX_LINE_BYTES || end - start < PREFIX.length + 2) {
    return INCONCLUSIVE;
  }
  for (let k = 0; k < PREFIX.length; k++) if (buf[start + k] !== PREFIX[k]) return INCONCLUSIVE;
  let i = start + PREFIX.length;
  let seq = 0;
  if (buf[i] === ZERO) {
    i++;
  } else {
    const first = i;
    for (let c = buf[i]!; isDigit(c); c = buf[++i]!) seq = seq * 10 + (c - ZERO);
    if (i === first || i - first > MAX_SEQ_DIGITS) return INCONCLUSIVE;
  }
  // The closing bracket of each container open around the current position, innermost last.
  const closers = CLOSERS;
  closers[0] = CLOSE_OBJECT;
  let depth = 1;
  let c = buf[i++];
  while (c === COMMA) {
    if (closers[depth - 1] === CLOSE_OBJECT) {
      if (buf[i] !== QUOTE) return INCONCLUSIVE;
      const key = i + 1;
      i = skipString(buf, key);
      if (i < 0 || buf[i] !== COLON) return INCONCLUSIVE;
      if (depth === 1 && mayBeSeqKey(buf, key, i - 1)) return INCONCLUSIVE;
      i++;
    }
    // One value; an opening bracket descends and its first member is read like one after a comma.
    const v = buf[i]!;
    if (v === OPEN_OBJECT || v === OPEN_ARRAY) {
      const close = v === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
      if (buf[i + 1] !== close) {
        if (depth === MAX_DEPTH) return INCONCLUSIVE;
        closers[depth++] = close;
        c = COMMA;
        i++;
        continue;
      }
      i += 2;
    } else if (v === QUOTE) i = skipString(buf, i + 1);
    else if (v === MINUS || isDigit(v)) i = skipNumber(buf, i);
    else if (v === 0x74) i = skipWord(buf, i, TRUE);
    else if (v === 0x66) i = skipWord(buf, i, FALSE);
    else if (v === 0x6e) i = skipWord(buf, i, NULL);
    else return INCONCLUSIVE;
    if (i < 0) return INCONCLUSIVE;
    // After a value: a comma for the next member, or closing brackets.
    c = buf[i++];
    while (c !== COMMA) {
      if (c !== closers[--depth]) return INCONCLUSIVE;
      if (depth === 0) return i === end ? seq : INCONCLUSIVE;
      c = buf[i++];
    }
  }
  return c === CLOSE_OBJECT && i === end ? seq : INCONCLUSIVE;
}
