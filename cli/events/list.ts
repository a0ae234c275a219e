import type { ListBodyWireEvent } from '../../schemas/eventBodies.ts';
import type { ApiClient } from '../api.ts';
import type { Scope } from '../cityScope.ts';
import { CliError } from '../errors.ts';
import { compact } from '../jsonl.ts';
import { selected, type EventFilter, type WireEvent } from './filter.ts';
import { cityEventsPath } from './head.ts';

/** The page size the CLI asks for when walking a city's event list. */
export const PAGE_LIMIT = 500;

/** A page of `GET /v0/city/{name}/events` (schemas/ ListBodyWireEvent); events are kept as received. */
type CityPage = Partial<Pick<ListBodyWireEvent, 'next_cursor'>> & { items?: WireEvent[] | null };

/**
 * Every event of a city's log after `after` (all when undefined), oldest first. Walks the list with
 * `limit=500` and `next_cursor` until the server says there is no more; it sorts by `seq` and drops repeats,
 * so it does not depend on the order the server pages in.
 *
 * Effects: HTTP requests. @throws ApiError, TransportError, CliError (a cursor that does not advance)
 */
export async function cityEvents(
  client: ApiClient,
  city: string,
  query: { type?: string | undefined; after?: number | undefined },
): Promise<WireEvent[]> {
  const bySeq = new Map<number, WireEvent>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const { body } = await client.getJson<CityPage>(cityEventsPath(city), {
      limit: PAGE_LIMIT,
      cursor,
      type: query.type,
      after_seq: query.after,
    });
    for (const ev of body.items ?? []) {
      const seq = typeof ev.seq === 'number' ? ev.seq : NaN;
      if (query.after !== undefined && !(seq > query.after)) continue;
      bySeq.set(seq, ev);
    }
    const next = body.next_cursor?.trim();
    if (!next) break;
    if (seen.has(next)) throw new CliError(`the city event list repeated its next_cursor "${next}"`);
    seen.add(next);
    cursor = next;
  }
  return [...bySeq.entries()].sort(([a], [b]) => a - b).map(([, ev]) => ev);
}

/**
 * The supervisor's merged event list (after `afterCursor` when given), oldest first by `ts` (ties keep the
 * server's order). Effects: one HTTP request. @throws ApiError, TransportError
 */
export async function supervisorEvents(
  client: ApiClient,
  query: { type?: string | undefined; afterCursor?: string | undefined },
): Promise<WireEvent[]> {
  const { body } = await client.getJson<{ items?: WireEvent[] | null }>('/v0/events', {
    type: query.type,
    after_cursor: query.afterCursor,
  });
  const time = (ev: WireEvent): number => (typeof ev.ts === 'string' ? Date.parse(ev.ts) : NaN) || 0;
  return (body.items ?? [])
    .map((ev, i) => ({ ev, i }))
    .sort((a, b) => time(a.ev) - time(b.ev) || a.i - b.i)
    .map((x) => x.ev);
}

/**
 * List mode: the scope's recorded events that pass the filter, each as one compact JSON line, oldest first.
 * Effects: HTTP requests; `emit` is called once per line.
 */
export async function listEvents(
  client: ApiClient,
  scope: Scope,
  opts: { filter: EventFilter; after?: number | undefined; afterCursor?: string | undefined },
  emit: (line: string) => Promise<void>,
): Promise<void> {
  const items =
    scope.kind === 'city'
      ? await cityEvents(client, scope.city, { type: opts.filter.type, after: opts.after })
      : await supervisorEvents(client, { type: opts.filter.type, afterCursor: opts.afterCursor });
  for (const ev of items) if (selected(opts.filter, ev)) await emit(compact(ev));
}
