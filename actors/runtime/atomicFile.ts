import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Replaces `path` with `text` atomically: writes a temp file beside it, fsyncs it, renames it over the
 * target, then fsyncs the directory, so a crash leaves either the old or the new content, never a torn
 * file. Throws the file system's error; the temp file is removed on failure.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const fh = await open(tmp, 'w', 0o644);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  // The rename is durable only once the directory entry is.
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } catch {
    // some file systems refuse fsync on a directory; the rename is still atomic
  } finally {
    await dir.close();
  }
}
