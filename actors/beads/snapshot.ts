import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Journal } from '../runtime/journal/journal.ts';
import { reindexBead } from '../../machines/beads/indexes.ts';
import { createModel, type BeadModel, type StoredBead } from '../../machines/beads/model.ts';

/**
 * Snapshots of a city's bead model, so a start-up folds only the events after the snapshot instead of
 * the whole log. A snapshot is a cache, never a source of truth: it is used only when it matches the
 * journal (same log, same prefix, and the event at its seq has the type and ts it recorded), and any
 * doubt (missing, torn, foreign, newer than the log) means a full replay.
 *
 * Format (JSON Lines, so a large model is written and read in pieces): a header
 * `{"version":1,"log","prefix","seq","anchor":{"type","ts"},"nextNumber"}`, then one `["b",ordinal,bead]`
 * per bead in creation order, one `["i",key,hash,bead]` per idempotency record, and `["end",lines]`.
 */
export const SNAPSHOT_VERSION = 1;

/** The event a snapshot was taken after: how a later start checks the log is the same one. */
export interface SnapshotAnchor {
  seq: number;
  type: string;
  ts: string;
}

interface Header {
  version: number;
  log: string;
  prefix: string;
  seq: number;
  anchor: { type: string; ts: string } | null;
  nextNumber: number;
}

/**
 * The model's state now, captured synchronously (beads are immutable objects, so holding references is a
 * consistent copy) and written later by {@link writeSnapshot}, while the model moves on.
 */
export interface SnapshotImage {
  header: Header;
  beads: Array<[number, StoredBead]>;
  records: Array<[string, string, StoredBead]>;
}

/** Captures `model` as of `anchor` (its last folded event). This is a pure function. */
export function captureSnapshot(
  log: string,
  model: Readonly<BeadModel>,
  anchor: SnapshotAnchor | undefined,
): SnapshotImage {
  return {
    header: {
      version: SNAPSHOT_VERSION,
      log,
      prefix: model.prefix,
      seq: model.seq,
      anchor: anchor && anchor.seq === model.seq ? { type: anchor.type, ts: anchor.ts } : null,
      nextNumber: model.nextNumber,
    },
    beads: [...model.beads.values()].map((e) => [e.ordinal, e.bead]),
    records: [...model.idempotency].map(([key, r]) => [key, r.hash, r.bead]),
  };
}

/**
 * Writes `image` to `file` atomically (a temp file beside it, fsynced, renamed over it), in chunks so the
 * event loop keeps serving. Throws the file system's error; the temp file is removed on failure.
 */
export async function writeSnapshot(file: string, image: SnapshotImage): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const fh = await open(tmp, 'w', 0o644);
    try {
      let chunk = `${JSON.stringify(image.header)}\n`;
      let lines = 1;
      const flush = async (force = false) => {
        if (force || chunk.length > 1 << 20) {
          await fh.write(chunk);
          chunk = '';
        }
      };
      for (const [ordinal, bead] of image.beads) {
        chunk += `${JSON.stringify(['b', ordinal, bead])}\n`;
        lines++;
        await flush();
      }
      for (const [key, hash, bead] of image.records) {
        chunk += `${JSON.stringify(['i', key, hash, bead])}\n`;
        lines++;
        await flush();
      }
      chunk += `${JSON.stringify(['end', lines])}\n`;
      await flush(true);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * The model saved in `file` if it belongs to `journal` and `prefix` and its anchor event is in the log;
 * undefined (with the reason) otherwise, and when there is no file.
 * Effects: reads `file`; reads one event of the journal.
 */
export async function readSnapshot(
  file: string,
  journal: Journal,
  prefix: string,
): Promise<{ model?: BeadModel; anchor?: SnapshotAnchor; reason?: string }> {
  let header: Header | undefined;
  let model: BeadModel | undefined;
  let lines = 0;
  let ended = false;
  try {
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      lines++;
      if (ended) return { reason: 'data after the end mark' };
      if (!header) {
        header = JSON.parse(line) as Header;
        if (header.version !== SNAPSHOT_VERSION) return { reason: `version ${header.version}` };
        if (header.log !== journal.name || header.prefix !== prefix)
          return { reason: 'another city or prefix' };
        model = createModel(prefix);
        model.seq = header.seq;
        model.nextNumber = header.nextNumber;
        continue;
      }
      const row = JSON.parse(line) as [string, ...unknown[]];
      if (row[0] === 'b') {
        const [, ordinal, bead] = row as [string, number, StoredBead];
        model!.beads.set(bead.id, { bead, ordinal });
        model!.indexes.order.push(bead.id, ordinal);
        reindexBead(model!.indexes, bead.id, undefined, bead);
      } else if (row[0] === 'i') {
        const [, key, hash, bead] = row as [string, string, string, StoredBead];
        model!.idempotency.set(key, { hash, bead });
      } else if (row[0] === 'end') {
        if (row[1] !== lines - 1) return { reason: 'line count mismatch' };
        ended = true;
      } else {
        return { reason: `unknown row ${String(row[0])}` };
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { reason: `unreadable: ${(err as Error).message}` };
  }
  if (!header || !model || !ended) return { reason: 'torn (no end mark)' };
  if (header.seq > 0) {
    const [at] = await journal.list({ afterSeq: header.seq - 1, limit: 1 });
    if (
      !at ||
      at.seq !== header.seq ||
      !header.anchor ||
      at.type !== header.anchor.type ||
      at.ts !== header.anchor.ts
    ) {
      return { reason: `the log does not hold the event it was taken after (seq ${header.seq})` };
    }
  }
  return { model, ...(header.anchor ? { anchor: { seq: header.seq, ...header.anchor } } : {}) };
}
