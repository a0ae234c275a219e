import type { Writable } from 'node:stream';

/**
 * Writes one line (a compact JSON object, or `--seq`'s cursor) followed by `\n`, and waits for the stream to
 * drain when it is full, so `--follow` into a slow reader applies back-pressure instead of buffering without
 * bound. Resolves when the line has been handed to the stream.
 */
export async function writeLine(out: Writable, line: string): Promise<void> {
  if (out.write(line + '\n')) return;
  await new Promise<void>((resolve) => out.once('drain', resolve));
}

/** The compact JSON text of a value: one line, no indentation, keys in the order received. Pure. */
export const compact = (value: unknown): string => JSON.stringify(value);
