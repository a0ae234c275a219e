import { randomBytes } from 'node:crypto';

const POOL_BYTES = 4096;
let pool: Buffer = Buffer.alloc(0);
let offset = 0;

/**
 * `bytes` random bytes as hex, drawn from a pool refilled 4 KiB at a time: one `randomBytes` call per
 * request id cost 4% of a bead create's CPU, the pool makes it one per few hundred ids. Same source, same
 * entropy per id.
 */
export function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    pool = randomBytes(Math.max(POOL_BYTES, bytes));
    offset = 0;
  }
  const out = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return out;
}
