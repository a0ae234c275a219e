/**
 * Frames encoded once for many streams. A chunked HTTP/1.1 response frames each write as
 * `<hex length>\r\n<bytes>\r\n`; that framing depends only on the bytes, so every stream that is handed
 * the same frames can be handed the same chunk, written as one buffer straight to its socket. Node's
 * `res.write` instead copies a string per stream and queues four writes (length, CRLF, data, CRLF).
 */
export class FrameBytes {
  #chunk: Buffer | undefined;

  constructor(readonly body: Buffer) {}

  static of(text: string): FrameBytes {
    return new FrameBytes(Buffer.from(text, 'utf8'));
  }

  /** The body as one HTTP/1.1 chunk, built on first use and shared after. */
  get chunk(): Buffer {
    return (this.#chunk ??= encodeChunk(this.body));
  }
}

/** `body` framed as one chunk of a chunked transfer coding (RFC 9112 §7.1). Pure. */
export function encodeChunk(body: Buffer): Buffer {
  const head = `${body.length.toString(16)}\r\n`;
  const out = Buffer.allocUnsafe(head.length + body.length + 2);
  out.write(head, 0, 'latin1');
  body.copy(out, head.length);
  out.write('\r\n', head.length + body.length, 'latin1');
  return out;
}
