import { readFileSync } from 'node:fs';
import { BdError } from './errors.ts';

/** bd's priority input: `0`–`4` or `P0`–`P4`. Pure. */
export function priorityOf(raw: string): number {
  const m = /^[Pp]?([0-4])$/.exec(raw.trim());
  if (!m) throw new BdError(`invalid priority "${raw}" (expected 0-4 or P0-P4)`);
  return Number(m[1]);
}

const KEY = /^[a-zA-Z_][a-zA-Z0-9_.]*$/;

/** A `--set-metadata k=v` pair; the key as bd accepts it (a dotted key is one flat key). Pure. */
export function metadataPair(raw: string): [string, string] {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new BdError(`invalid metadata "${raw}" (expected key=value)`);
  const key = raw.slice(0, eq);
  if (!KEY.test(key)) throw new BdError(`invalid metadata key "${key}"`);
  return [key, raw.slice(eq + 1)];
}

/**
 * `--metadata <json|@file>`: a JSON object whose values are kept as strings (gc reads metadata as a
 * string map; non-string values are written as their JSON text).
 */
export function metadataObject(raw: string): Record<string, string> {
  let text = raw;
  if (raw.startsWith('@')) {
    try {
      text = readFileSync(raw.slice(1), 'utf8');
    } catch (err) {
      throw new BdError(`reading metadata file ${raw.slice(1)}: ${(err as Error).message}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BdError('invalid --metadata: not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BdError('invalid --metadata: expected a JSON object');
  }
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}

/** `--metadata-field k=v` filters. Pure. */
export const metadataFilters = (raw: readonly string[]): [string, string][] =>
  raw.map((r) => {
    const eq = r.indexOf('=');
    if (eq <= 0) throw new BdError(`invalid --metadata-field "${r}" (expected key=value)`);
    return [r.slice(0, eq), r.slice(eq + 1)];
  });

/** A `--limit` value: a non-negative integer (0: no limit). Pure. */
export function limitOf(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new BdError(`invalid --limit "${raw}"`);
  return Number(raw);
}
