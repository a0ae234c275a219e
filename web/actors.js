// The live actor view: GET /v0/actors/stream's `actors` frame, then one `actor` frame per change.
import { resilientStream } from './api.js';
import { fill, h, stateText } from './dom.js';

const actors = new Map();
let filter = '';

const KIND_ORDER = { supervisor: 0, city: 1, request: 2, session: 3, agent: 4, scheduler: 5 };

function render() {
  const rows = [...actors.values()]
    .filter((a) => !filter || `${a.id} ${a.kind} ${stateText(a.state)}`.includes(filter))
    .sort((a, b) => (KIND_ORDER[a.kind] ?? 9) - (KIND_ORDER[b.kind] ?? 9) || a.id.localeCompare(b.id))
    .map((a) =>
      h(
        'tr',
        { dataset: { actor: a.id, status: a.status } },
        h('td', null, a.id),
        h('td', null, a.kind),
        h('td', { class: 'state' }, stateText(a.state)),
        h('td', null, a.status),
        h('td', { class: 'ctx' }, JSON.stringify(a.context)),
      ),
    );
  fill('actors', ...(rows.length ? rows : [h('tr', null, h('td', { colspan: 5, class: 'muted' }, 'none'))]));
  fill('actor-count', `${actors.size} live`);
}

function setStatus(status) {
  const badge = document.getElementById('stream-status');
  badge.className = `badge ${status}`;
  badge.dataset.status = status;
  badge.textContent = status === 'live' ? 'live' : 'reconnecting…';
}

document.getElementById('filter').addEventListener('input', (e) => {
  filter = e.target.value;
  render();
});

resilientStream({
  path: '/v0/actors/stream',
  frames: {
    actors: (body) => {
      actors.clear();
      for (const a of body.items) actors.set(a.id, a);
      render();
    },
    actor: (a) => {
      if (a.status === 'done') actors.delete(a.id);
      else actors.set(a.id, a);
      render();
    },
  },
  onStatus: setStatus,
});
