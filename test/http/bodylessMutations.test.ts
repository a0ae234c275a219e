import { request } from 'node:http';
import t, { type Test } from 'tap';
import type { Bead } from '../../schemas/beads.ts';
import type { Message } from '../../schemas/mail.ts';
import { backendEnv, call, cityHarness, createBead, mutation, type CityHarness } from '../beads/helpers.ts';
import { fillPath, operationsOf, type OpenApiDoc } from '../faults/openapiOps.ts';

const FORM = 'application/x-www-form-urlencoded';

/** A city on the memory journal: the content-type rules are the HTTP layer's, whatever the backend. */
async function city(t: Test): Promise<CityHarness> {
  const env = await backendEnv(t, 'memory');
  return cityHarness(t, env!);
}

/**
 * One request over a real socket, framed as Node's http client (and so axios) frames it: `end()` with no
 * data sends `Content-Length: 0` on POST and no length at all on DELETE; `chunked` sends an empty chunked
 * body instead. Answers the status and the parsed body.
 */
function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: { detail?: string; status?: unknown } }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const sendMail = async (h: CityHarness): Promise<Message> => {
  const res = await call(h, 'POST', '/mail', { to: 'bob', subject: 'Hello', body: 'Hi' });
  return res.json<Message>();
};

const getBead = async (h: CityHarness, id: string) => call(h, 'GET', `/bead/${id}`);

t.test('bodyless mutations ignore a form content type on an empty body, over a real socket', async (t) => {
  const h = await city(t);
  const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  const headers = { ...mutation(), 'content-type': FORM };
  const bead = await createBead(t, h, { title: 'Ship it' });

  const close = await send(base, 'POST', `${h.base}/bead/${bead.id}/close`, headers);
  t.same([close.status, close.json.status], [200, 'closed'], 'close');
  t.equal((await getBead(h, bead.id)).json<Bead>().status, 'closed');
  const reopen = await send(base, 'POST', `${h.base}/bead/${bead.id}/reopen`, {
    ...headers,
    'transfer-encoding': 'chunked',
  });
  t.same([reopen.status, reopen.json.status], [200, 'reopened'], 'reopen, with an empty chunked body');
  t.equal((await getBead(h, bead.id)).json<Bead>().status, 'open');

  const msg = await sendMail(h);
  for (const [action, status] of [
    ['read', 'read'],
    ['mark-unread', 'unread'],
    ['archive', 'archived'],
  ] as const) {
    const res = await send(base, 'POST', `${h.base}/mail/${msg.id}/${action}`, headers);
    t.same([res.status, res.json.status], [200, status], `mail ${action}`);
  }

  const convoy = await call(h, 'POST', '/convoys', { title: 'Batch' });
  t.equal(convoy.statusCode, 201, convoy.body);
  const closeConvoy = await send(base, 'POST', `${h.base}/convoy/${convoy.json<Bead>().id}/close`, headers);
  t.same([closeConvoy.status, closeConvoy.json.status], [200, 'closed'], 'convoy close');

  // DELETE with no data: Node sends neither Content-Length nor Transfer-Encoding.
  const del = await send(base, 'DELETE', `${h.base}/bead/${bead.id}`, headers);
  t.same([del.status, del.json.status], [200, 'deleted'], 'delete');
  t.equal((await getBead(h, bead.id)).statusCode, 404);
});

t.test('every operation without a body schema ignores any content type of an empty body', async (t) => {
  const h = await city(t);
  const doc = (await h.app.inject({ url: '/openapi.json' })).json<OpenApiDoc>();
  const bodyless = operationsOf(doc).filter((op) => op.mutation && !op.body && !op.stream);
  t.ok(bodyless.length >= 10, `${bodyless.length} bodyless mutations`);
  for (const type of [FORM, 'text/plain', 'application/octet-stream', 'multipart/form-data; boundary=x']) {
    for (const op of bodyless) {
      const res = await h.app.inject({
        method: op.method as 'POST',
        url: fillPath(op.path, { cityName: h.name }, 'nothing-here'),
        headers: { ...mutation(), 'content-type': type },
        payload: '',
      });
      t.not(res.statusCode, 415, `${op.method} ${op.path} with ${type}: ${res.body}`);
    }
  }
});

t.test('a body on an operation that takes none is refused precisely, and changes nothing', async (t) => {
  const h = await city(t);
  const bead = await createBead(t, h, { title: 'Keep me open' });
  for (const type of [FORM, 'text/plain', 'application/octet-stream']) {
    const res = await call(h, 'POST', `/bead/${bead.id}/close`, undefined, { 'content-type': type });
    t.equal(res.statusCode, 200, `empty ${type} still closes`);
    await call(h, 'POST', `/bead/${bead.id}/reopen`);
    const refused = await h.app.inject({
      method: 'POST',
      url: `${h.base}/bead/${bead.id}/close`,
      headers: { ...mutation(), 'content-type': type },
      payload: 'reason=done',
    });
    t.equal(refused.statusCode, 415, type);
    t.match(refused.json().detail, /^invalid: this operation takes no request body/, type);
    t.equal((await getBead(h, bead.id)).json<Bead>().status, 'open', `${type}: nothing changed`);
  }
});

t.test('operations with a JSON body keep requiring JSON', async (t) => {
  const h = await city(t);
  for (const [type, payload] of [
    ['text/plain', '{"title":"smuggled"}'],
    [FORM, 'title=smuggled'],
    [FORM, ''],
    ['application/octet-stream', '{"title":"smuggled"}'],
  ] as const) {
    const res = await h.app.inject({
      method: 'POST',
      url: `${h.base}/beads`,
      headers: { ...mutation(), 'content-type': type },
      payload,
    });
    t.equal(res.statusCode, 415, `${type} ${JSON.stringify(payload)}: ${res.body}`);
    t.match(res.json().detail, /^invalid: Content-Type .* is not supported here; send application\/json/);
  }
  const garbled = await h.app.inject({
    method: 'POST',
    url: `${h.base}/beads`,
    headers: { ...mutation(), 'content-type': 'not a media type' },
    payload: '{"title":"smuggled"}',
  });
  t.equal(garbled.statusCode, 415);
  t.equal(garbled.json().detail, 'invalid: the Content-Type header is not a valid media type');
  const list = await call(h, 'GET', '/beads');
  t.equal(list.json().total, 0, 'nothing was created');
});
