import type { Bead } from '../../schemas/beads.ts';
import { ApiFailure, type BdClient } from './client.ts';
import { BdError } from './errors.ts';

/** The bead store operations bd uses, as calls of the city's beads API. */

interface ListBody {
  items: Bead[] | null;
  next_cursor?: string;
}

export interface ListQuery {
  status?: string;
  type?: string;
  label?: string;
  assignee?: string;
  all?: boolean;
}

/** One bead; a missing one is bd's `no issue found matching "<id>"`. */
export async function getBead(c: BdClient, id: string): Promise<Bead> {
  try {
    return (await c.call('GET', `${await c.cityPath()}/bead/${encodeURIComponent(id)}`)).body as Bead;
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 404) throw new BdError(`no issue found matching "${id}"`);
    throw err;
  }
}

/** Every bead matching the server-side filter (all pages). */
export async function listAll(c: BdClient, q: ListQuery): Promise<Bead[]> {
  const out: Bead[] = [];
  let cursor: string | undefined;
  do {
    const params = new URLSearchParams({ limit: '1000' });
    for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') params.set(k, String(v));
    if (cursor) params.set('cursor', cursor);
    const body = (await c.call('GET', `${await c.cityPath()}/beads?${params.toString()}`)).body as ListBody;
    out.push(...(body.items ?? []));
    cursor = body.next_cursor;
  } while (cursor);
  return out;
}

/** The city's ready beads (open, unblocked, not deferred, not bookkeeping). */
export async function readyAll(c: BdClient): Promise<Bead[]> {
  const body = (await c.call('GET', `${await c.cityPath()}/beads/ready`)).body as ListBody;
  return body.items ?? [];
}

export async function post(c: BdClient, id: string, verb: string, body?: unknown): Promise<unknown> {
  return (await c.call('POST', `${await c.cityPath()}/bead/${encodeURIComponent(id)}/${verb}`, body)).body;
}
