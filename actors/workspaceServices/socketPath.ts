import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where a workspace service listens: a unix socket under `$TMPDIR/gcsvc-<uid>/<8 hex of sha256(city
 * path)>/`, as upstream allocates it (a socket path must stay short: 107 bytes on Linux, so never under the
 * city directory). The directory is created owner-only. Effects: creates directories.
 */
export async function allocateSocketPath(cityPath: string, service: string): Promise<string> {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const dir = join(tmpdir(), `gcsvc-${uid}`, createHash('sha256').update(cityPath).digest('hex').slice(0, 8));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const prefix =
    service
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .slice(0, 16) || 'svc';
  return join(dir, `${prefix}-${randomBytes(4).toString('hex')}.sock`);
}

/** Removes a socket file left by a process (a stale one would refuse the next bind). Effects: unlinks. */
export async function removeSocket(path: string): Promise<void> {
  await rm(path, { force: true });
}
