// The dashboard's only transport: fetch for reads and mutations, EventSource for streams.

/** GET a JSON body; throws with the Problem Details' `detail` on an error status. */
export async function getJson(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  const body = res.status === 204 ? undefined : await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(body?.detail ?? `${res.status} ${res.statusText}`);
  return body;
}

/**
 * A mutation: every POST/PUT/PATCH/DELETE carries `X-GC-Request` (the API's anti-CSRF header: a page of
 * another origin cannot set it without a preflight the supervisor refuses).
 */
export async function send(method, path, body) {
  const headers = { 'x-gc-request': 'dashboard' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw new Error(json?.detail ?? `${res.status} ${res.statusText}`);
  return json;
}

/**
 * An SSE stream that survives anything: EventSource resumes by itself after a dropped connection (sending
 * Last-Event-ID), but a non-200 answer (a 503 while no city runs, a supervisor still starting) closes it
 * for good; then this opens it again after `retryMs`, from the last id seen (`cursorParam`). `onStatus`
 * hears 'live' once a stream is open and 'reconnecting' while it is not.
 * @param {{ path: string, cursorParam?: string, cursor?: string, frames: Record<string, (data: unknown, id: string) => void>, onStatus: (s: string) => void, retryMs?: number }} o
 */
export function resilientStream(o) {
  let lastId = o.cursor ?? '';
  let es;
  let timer;
  let closed = false;
  const open = () => {
    const url = lastId && o.cursorParam ? `${o.path}?${o.cursorParam}=${encodeURIComponent(lastId)}` : o.path;
    es = new EventSource(url);
    es.addEventListener('open', () => o.onStatus('live'));
    for (const [name, handler] of Object.entries(o.frames)) {
      es.addEventListener(name, (m) => {
        if (m.lastEventId) lastId = m.lastEventId;
        handler(JSON.parse(m.data), m.lastEventId);
      });
    }
    es.addEventListener('error', () => {
      o.onStatus('reconnecting');
      if (es.readyState === EventSource.CLOSED && !closed) {
        clearTimeout(timer);
        timer = setTimeout(open, o.retryMs ?? 1000);
      }
    });
  };
  open();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      es?.close();
    },
  };
}
