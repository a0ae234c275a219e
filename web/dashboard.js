// The dashboard: plain DOM, fetch and EventSource (no framework: see README, "The dashboard").
import { getJson, resilientStream, send } from './api.js';
import { fill, h } from './dom.js';

/** Events kept in memory for the filters; only the newest SHOWN matching ones are in the page. */
const KEPT = 10_000;
const SHOWN = 200;

const state = {
  cities: [],
  city: '',
  sessions: [],
  session: '',
  events: [],
  seen: new Set(),
  filter: { city: '', type: '', text: '' },
  /** The newest event seq seen per city: a read model behind it is read again. */
  heads: {},
};

const showError = (err) => {
  const el = document.getElementById('error');
  if (el) el.textContent = err ? String(err.message ?? err) : '';
};

/** Runs `fn` at most once per `ms`, trailing: bursts of events cause one reload. */
function coalesce(fn, ms = 150) {
  let timer;
  return () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      fn().catch(showError);
    }, ms);
  };
}

// ---- cities

async function loadCities() {
  const body = await getJson('/v0/cities');
  state.cities = body.items ?? [];
  if (!state.city && state.cities.length > 0) state.city = state.cities[0].name;
  renderCities();
}

function renderCities() {
  fill(
    'cities',
    ...(state.cities.length === 0
      ? [h('tr', null, h('td', { colspan: 3, class: 'muted' }, 'no city yet'))]
      : state.cities.map((c) =>
          h(
            'tr',
            {
              class: `clickable${c.name === state.city ? ' selected' : ''}`,
              dataset: { city: c.name },
              onclick: () => selectCity(c.name),
            },
            h('td', null, c.name),
            h('td', { class: 'state' }, c.status ?? ''),
            h('td', null, c.running ? 'yes' : 'no'),
          ),
        )),
  );
  const select = document.getElementById('filter-city');
  const current = select.value;
  select.replaceChildren(
    h('option', { value: '' }, 'all cities'),
    ...state.cities.map((c) => h('option', { value: c.name }, c.name)),
  );
  select.value = current;
}

function selectCity(name) {
  state.city = name;
  state.session = '';
  renderCities();
  reloadCity();
}

// ---- the selected city: sessions, beads, convoys

const cityPath = () => `/v0/city/${encodeURIComponent(state.city)}`;

async function loadCity() {
  fill('city-name', state.city ? `in ${state.city}` : '');
  if (!state.city) return;
  const city = state.cities.find((c) => c.name === state.city);
  if (!city?.running) {
    fill('sessions', h('tr', null, h('td', { colspan: 4, class: 'muted' }, 'city not running')));
    fill('beads');
    fill('convoys');
    return;
  }
  const [sessions, beads, convoys] = await Promise.all([
    getJson(`${cityPath()}/sessions`).catch(() => ({ items: [] })),
    fetch(`${cityPath()}/beads?limit=50`).then(async (res) => ({
      items: res.ok ? ((await res.json()).items ?? []) : [],
      index: Number(res.headers.get('x-gc-index') ?? 0),
    })),
    getJson(`${cityPath()}/convoys`).catch(() => ({ items: [] })),
  ]);
  state.sessions = sessions.items ?? [];
  renderSessions();
  // The stream can be ahead of the bead store's read model by an event or two: read again until it caught up.
  if (beads.index < (state.heads[state.city] ?? 0)) reloadCity();
  fill(
    'beads',
    ...(beads.items ?? []).map((b) =>
      h(
        'tr',
        { dataset: { bead: b.id } },
        h('td', null, b.id),
        h('td', null, b.title),
        h('td', null, b.issue_type ?? b.type ?? ''),
        h('td', { class: 'state' }, b.status),
      ),
    ),
  );
  fill(
    'convoys',
    ...(convoys.items ?? []).map((c) =>
      h(
        'tr',
        null,
        h('td', null, c.id),
        h('td', null, c.title ?? ''),
        h('td', { class: 'state' }, c.status ?? ''),
        h('td', null, c.progress ? `${c.progress.closed ?? 0}/${c.progress.total ?? 0}` : ''),
      ),
    ),
  );
}
const reloadCity = coalesce(loadCity);

function renderSessions() {
  fill(
    'sessions',
    ...(state.sessions.length === 0
      ? [h('tr', null, h('td', { colspan: 4, class: 'muted' }, 'no session'))]
      : state.sessions.map((s) =>
          h(
            'tr',
            {
              class: `clickable${s.id === state.session ? ' selected' : ''}`,
              dataset: { session: s.id },
              onclick: () => selectSession(s.id),
            },
            h('td', null, s.alias ?? s.id),
            h('td', { class: 'state' }, s.state),
            h('td', null, s.template),
            h('td', null, s.running ? 'yes' : 'no'),
          ),
        )),
  );
}

// ---- one session: state and live transcript

function selectSession(id) {
  state.session = id;
  renderSessions();
  fill(
    'session-detail',
    h('h2', null, 'Transcript'),
    h('pre', { id: 'transcript', class: 'transcript' }, '…'),
    h(
      'form',
      {
        id: 'message',
        onsubmit: (e) => {
          e.preventDefault();
          const input = e.target.elements.message;
          const text = input.value;
          input.value = '';
          send('POST', `${cityPath()}/session/${encodeURIComponent(id)}/messages`, { message: text })
            .then(() => loadTranscript())
            .catch(showError);
        },
      },
      h('input', { name: 'message', placeholder: 'message to the agent', size: 40 }),
      h('button', null, 'Send'),
    ),
  );
  loadTranscript().catch(showError);
}

/** The conversation from the transcript route when the agent keeps a log; else the screen (peek). */
async function loadTranscript() {
  const id = state.session;
  if (!id) return;
  const base = `${cityPath()}/session/${encodeURIComponent(id)}`;
  let text = '';
  try {
    const page = await getJson(`${base}/transcript`);
    text = (page.turns ?? []).map((t) => `${t.role}: ${t.text}`).join('\n');
  } catch {
    // no transcript (yet): the screen below says what the agent shows
  }
  if (!text) {
    const view = await getJson(`${base}?peek=true`);
    text = view.last_output ?? `(${view.state})`;
  }
  if (state.session !== id) return;
  const pre = document.getElementById('transcript');
  if (pre && pre.textContent !== text) {
    pre.textContent = text;
    pre.scrollTop = pre.scrollHeight;
  }
}

// ---- events

// A city's request results are on the supervisor's log (its seq) but tagged with the city: seq alone does
// not say which log an event is from, so the key adds what the two logs never share for one seq.
const eventKey = (e) => `${e.city ?? ''}:${e.seq}:${e.type}:${e.ts}`;

function matches(e) {
  const f = state.filter;
  if (f.city && e.city !== f.city) return false;
  if (f.type && !e.type.includes(f.type)) return false;
  if (f.text && !`${e.subject ?? ''} ${e.message ?? ''}`.includes(f.text)) return false;
  return true;
}

function eventRow(e) {
  return h(
    'tr',
    { dataset: { key: eventKey(e), type: e.type } },
    h('td', null, (e.ts ?? '').slice(11, 19)),
    h('td', null, e.city ?? ''),
    h('td', null, e.seq),
    h('td', null, e.type),
    h('td', null, e.actor ?? ''),
    h('td', null, e.subject ?? ''),
    h('td', null, e.message ?? ''),
  );
}

function renderEvents() {
  const rows = [];
  for (let i = state.events.length - 1; i >= 0 && rows.length < SHOWN; i--) {
    if (matches(state.events[i])) rows.push(eventRow(state.events[i]));
  }
  fill('event-rows', ...rows);
  fill('event-count', `(${state.events.length} received)`);
}

/** Adds an event once (a resumed stream never repeats one, and this holds even if one did). */
function addEvent(e) {
  const key = eventKey(e);
  if (state.seen.has(key)) {
    // Counted where a test (or a curious user) can see it: a resumed stream should never repeat one.
    document.body.dataset.duplicates = String(Number(document.body.dataset.duplicates ?? 0) + 1);
    document.body.dataset.duplicateKeys = `${document.body.dataset.duplicateKeys ?? ''} ${key}`.trim();
    return false;
  }
  state.seen.add(key);
  state.events.push(e);
  if (state.events.length > KEPT) state.seen.delete(eventKey(state.events.shift()));
  return true;
}

function onEvent(e) {
  if (!addEvent(e)) return;
  if (e.city) state.heads[e.city] = Math.max(state.heads[e.city] ?? 0, e.seq);
  if (matches(e)) {
    const body = document.getElementById('event-rows');
    body.prepend(eventRow(e));
    while (body.children.length > SHOWN) body.lastElementChild.remove();
  }
  fill('event-count', `(${state.events.length} received)`);
  if (e.type.startsWith('city.') || e.type.startsWith('request.')) reloadCities();
  if (e.city === state.city) {
    reloadCity();
    if (state.session) reloadTranscript();
  }
}
const reloadCities = coalesce(() => loadCities().then(loadCity));
const reloadTranscript = coalesce(loadTranscript, 300);

function setStatus(status) {
  const badge = document.getElementById('stream-status');
  badge.className = `badge ${status}`;
  badge.dataset.status = status;
  badge.textContent = status === 'live' ? 'live' : 'reconnecting…';
  if (status === 'live') reloadCities();
}

async function start() {
  for (const [id, key] of [
    ['filter-city', 'city'],
    ['filter-type', 'type'],
    ['filter-text', 'text'],
  ]) {
    document.getElementById(id).addEventListener('input', (e) => {
      state.filter[key] = e.target.value;
      renderEvents();
    });
  }
  document.getElementById('new-session').addEventListener('submit', (e) => {
    e.preventDefault();
    if (!state.city) return;
    const alias = e.target.elements.alias.value.trim();
    send('POST', `${cityPath()}/sessions`, alias ? { alias } : {}).catch(showError);
  });
  const [health, list] = await Promise.all([
    getJson('/health').catch(() => undefined),
    getJson(`/v0/events?limit=${SHOWN}`).catch(() => ({ items: [], event_cursor: '' })),
    loadCities().catch(showError),
  ]);
  if (health) fill('supervisor', `supervisor ${health.version} · ${health.journal} journal`);
  for (const e of list.items ?? []) addEvent(e);
  renderEvents();
  await loadCity().catch(showError);
  // The list's cursor: the stream continues exactly after it (no gap, no repeat); later reconnects resume
  // from the last frame's id (Last-Event-ID, or after_cursor when the stream had to be opened again).
  resilientStream({
    path: '/v0/events/stream',
    cursorParam: 'after_cursor',
    cursor: list.event_cursor,
    frames: { tagged_event: onEvent },
    onStatus: setStatus,
  });
  // The agent's screen is no event: while a session is selected its transcript is re-read now and then.
  setInterval(() => {
    if (state.session && document.visibilityState === 'visible') loadTranscript().catch(() => undefined);
  }, 1500);
}

start().catch(showError);
