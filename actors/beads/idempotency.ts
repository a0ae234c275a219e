import { createHash } from 'node:crypto';
import { IdempotencyMismatchError, InFlightError } from '../runtime/errors.ts';

/**
 * The hash that tells a retried request from another one under the same Idempotency-Key: SHA-256 of
 * the body as canonical JSON (object keys sorted), so field order and whitespace do not matter.
 * This is a pure function.
 */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Keyed requests of one city that are being served now. Completed ones are not kept here: their key
 * and hash are recorded in the created bead's metadata, so they survive a restart (see the model).
 */
export class InFlightKeys {
  readonly #keys = new Map<string, string>();

  /**
   * Reserves `key` for a request with body hash `hash` until `release`.
   * @throws IdempotencyMismatchError (422) when the key is in flight with another body;
   *   InFlightError (409) when it is in flight with this body.
   */
  reserve(key: string, hash: string): void {
    const pending = this.#keys.get(key);
    if (pending !== undefined) throw pending === hash ? new InFlightError() : new IdempotencyMismatchError();
    this.#keys.set(key, hash);
  }

  release(key: string): void {
    this.#keys.delete(key);
  }
}
