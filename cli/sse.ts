/** One dispatched server-sent-event frame. `id` is absent when the frame carried no `id:` line. */
export interface SseFrame {
  id?: string;
  event: string;
  data: string;
}

/**
 * An incremental parser for `text/event-stream` (the WHATWG rules): feed it decoded text in whatever chunks
 * the network delivers, and it returns the frames completed so far. Lines end in `\n`, `\r\n` or `\r`;
 * comment lines (`:`) and `retry:` are ignored; multi-line `data:` is joined with `\n`; a frame without
 * `event:` is `message`; a frame without data is not dispatched. Unlike a browser it does not carry the last
 * id over to later frames: the caller wants to know which frames had an id (heartbeats have none).
 */
export class SseParser {
  #buffer = '';
  #pendingCR = false;
  #id: string | undefined;
  #event = '';
  #data: string[] = [];

  /** Consumes a chunk and returns the frames it completed. Pure apart from the parser's own buffer. */
  push(chunk: string): SseFrame[] {
    let text = chunk;
    // A `\r\n` split across two chunks must not count as two line ends.
    if (this.#pendingCR && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCR = false;
    this.#buffer += text;
    const frames: SseFrame[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.#buffer);
      if (!m) break;
      if (m[0] === '\r' && m.index === this.#buffer.length - 1) {
        this.#pendingCR = true;
      }
      const line = this.#buffer.slice(0, m.index);
      this.#buffer = this.#buffer.slice(m.index + m[0].length);
      const frame = this.#line(line);
      if (frame) frames.push(frame);
    }
    return frames;
  }

  #line(line: string): SseFrame | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        break;
      case 'event':
        this.#event = value;
        break;
      case 'data':
        this.#data.push(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  #dispatch(): SseFrame | undefined {
    const hasData = this.#data.length > 0;
    const frame: SseFrame = { event: this.#event || 'message', data: this.#data.join('\n') };
    if (this.#id !== undefined) frame.id = this.#id;
    this.#id = undefined;
    this.#event = '';
    this.#data = [];
    return hasData ? frame : undefined;
  }
}
