import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import type { WriteFn } from '../../actors/runtime/journal/logWriter.ts';

/**
 * How the disk faults are injected, most real first. We run as root, so permissions (chmod) do not stop
 * a write; the kernel has to refuse it:
 * - a full disk: a tiny tmpfs mounted for the test and filled up with a filler file (ENOSPC, and short
 *   writes when a batch is larger than the room left in the log's last page);
 * - a read-only journal: `chattr +i` on the log file (every write through the open O_APPEND handle then
 *   fails with EPERM). Remounting a file system read-only is refused while the journal holds a writable
 *   handle on it ("mount point is busy"), so a read-only mount cannot be injected under a running
 *   supervisor; the immutable flag is the closest the kernel gets;
 * - when neither is allowed here (no CAP_SYS_ADMIN, a file system without attributes), the file journal's
 *   own writer seam (`FileJournalOptions.writer`) fails the writes instead, with the same error codes.
 */

/** Mounts a tmpfs of `size` (e.g. `4m`) on `dir`; false when this sandbox does not allow it. */
export function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Unmounts `dir` (lazily, so a handle left open by a failed test cannot keep it mounted). */
export function unmount(dir: string): void {
  try {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  } catch {
    // Already gone.
  }
}

/**
 * Fills the file system holding `file` until it refuses another byte (ENOSPC), writing big chunks first
 * and then smaller ones so no whole block is left. Returns the bytes written; delete `file` to free them.
 */
export function fillDisk(file: string): number {
  const fd = openSync(file, 'w');
  let total = 0;
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x78);
      for (;;) {
        try {
          total += writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return total;
}

/** Sets or clears the immutable attribute of `file`; false when the file system does not support it. */
export function setImmutable(file: string, on: boolean): boolean {
  try {
    execFileSync('chattr', [on ? '+i' : '-i', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Removes a filler file (the space comes back at once). */
export const freeDisk = (file: string): void => rmSync(file, { force: true });

/**
 * The fallback: a journal writer that fails while `fault.code` is set, as the kernel would. An ENOSPC
 * write first lands half of its bytes (a short write), then fails, so the journal has to cut a torn line.
 */
export function faultyWriter(): { writer: WriteFn; fault: { code: 'ENOSPC' | 'EROFS' | undefined } } {
  const fault: { code: 'ENOSPC' | 'EROFS' | undefined } = { code: undefined };
  let short = false;
  const writer: WriteFn = async (handle, data) => {
    if (fault.code === 'ENOSPC' && !short && data.length > 1) {
      short = true;
      return (await handle.write(data.subarray(0, data.length >> 1))).bytesWritten;
    }
    short = false;
    if (fault.code) {
      const err = new Error(`${fault.code}: injected write failure`) as NodeJS.ErrnoException;
      err.code = fault.code;
      throw err;
    }
    return (await handle.write(data)).bytesWritten;
  };
  return { writer, fault };
}
