import type { LiveCities, LiveCity } from '../liveCities.ts';
import type { Subscription } from '../journal/journal.ts';
import { isSessionApi, SESSION_SERVICE, type SessionView } from '../sessions/sessionApi.ts';
import type { ActorEntry } from '../../schemas/actors.ts';

/** Sessions per city the view lists (the session service's page bound). */
const SESSION_PAGE = 1000;

/** A session as an actor entry: its state as the API shows it, and what identifies it. Pure. */
export function sessionEntry(city: string, s: SessionView): ActorEntry {
  const context: Record<string, unknown> = {
    template: s.template,
    provider: s.provider,
    session_name: s.session_name,
    running: s.running,
  };
  if (s.alias) context['alias'] = s.alias;
  if (s.title) context['title'] = s.title;
  if (s.reason) context['reason'] = s.reason;
  if (s.last_active) context['last_active'] = s.last_active;
  return {
    id: `session:${city}/${s.id}`,
    kind: 'session',
    city,
    state: s.state,
    status: s.state === 'closed' ? 'done' : 'active',
    context,
  };
}

/** The open sessions of every running city with a session service, as actor entries. */
export async function listSessionActors(cities: LiveCities): Promise<ActorEntry[]> {
  const lists = await Promise.all(cities.list().map((city) => citySessions(city)));
  return lists.flat();
}

async function citySessions(city: LiveCity): Promise<ActorEntry[]> {
  const service = city.services[SESSION_SERVICE];
  if (!city.running || !isSessionApi(service)) return [];
  try {
    const page = await service.list({ limit: SESSION_PAGE });
    return page.items.map((s) => sessionEntry(city.name, s));
  } catch {
    return []; // a city stopping under us: its sessions leave with it
  }
}

/** Session-bearing event kinds: sessions are beads, and their lifecycle has its own events. */
const touchesSessions = (type: string): boolean =>
  type.startsWith('session.') || type.startsWith('bead.') || type.startsWith('request.result.session');

/**
 * Watches the sessions of every city while someone looks: one journal subscription per city from its
 * head; an event that may touch a session re-reads that city's sessions (coalesced: one read at a time,
 * one more if events came during it) and reports each entry that differs from the last one seen, and
 * each session gone as `status: done`. Returns the function that stops everything it started.
 */
export function watchSessionActors(
  cities: LiveCities,
  initial: readonly ActorEntry[],
  onChange: (entry: ActorEntry) => void,
): () => void {
  const seen = new Map<string, Map<string, string>>();
  for (const entry of initial) {
    if (entry.kind !== 'session' || entry.city === undefined) continue;
    let city = seen.get(entry.city);
    if (!city) seen.set(entry.city, (city = new Map<string, string>()));
    city.set(entry.id, JSON.stringify(entry));
  }
  const watches = new Map<string, { sub: Subscription | undefined; busy: boolean; dirty: boolean }>();
  let stopped = false;

  const refresh = async (name: string): Promise<void> => {
    const watch = watches.get(name);
    if (!watch) return;
    if (watch.busy) {
      watch.dirty = true;
      return;
    }
    watch.busy = true;
    do {
      watch.dirty = false;
      const city = cities.get(name);
      const entries = city ? await citySessions(city) : [];
      if (stopped) return;
      const before = seen.get(name) ?? new Map<string, string>();
      const after = new Map<string, string>();
      for (const entry of entries) {
        const text = JSON.stringify(entry);
        after.set(entry.id, text);
        if (before.get(entry.id) !== text) onChange(entry);
      }
      for (const [id, text] of before) {
        if (!after.has(id)) onChange({ ...(JSON.parse(text) as ActorEntry), status: 'done' });
      }
      seen.set(name, after);
    } while (watch.dirty);
    watch.busy = false;
  };

  const follow = async (city: LiveCity): Promise<void> => {
    const watch = { sub: undefined as Subscription | undefined, busy: false, dirty: false };
    watches.set(city.name, watch);
    try {
      const head = await city.journal.head();
      if (stopped || watches.get(city.name) !== watch) return;
      watch.sub = city.journal.subscribe(head);
      // What changed between the list and the subscription is caught up once.
      void refresh(city.name);
      for await (const event of watch.sub) {
        if (touchesSessions(event.type)) void refresh(city.name);
      }
    } catch {
      // the city's log closed (detach, shutdown): nothing more to watch there
    }
  };

  for (const city of cities.list()) void follow(city);
  const offCities = cities.onChange((change) => {
    if (change.kind === 'detached') {
      void watches.get(change.city.name)?.sub?.close();
      void refresh(change.city.name).finally(() => watches.delete(change.city.name));
    } else if (!watches.has(change.city.name)) void follow(change.city);
    else void refresh(change.city.name); // running changed: its session service came or went
  });
  return () => {
    stopped = true;
    offCities();
    for (const watch of watches.values()) void watch.sub?.close();
    watches.clear();
  };
}
