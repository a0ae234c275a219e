import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../cli/helpers/gc.ts';
import { memoryApp } from '../helpers/app.ts';

/**
 * The README's "HTTP API from scripts and browsers" section against the app: the documents it names are
 * served, its table names every SSE stream with the frame names the OpenAPI document declares, and the CORS
 * policy it states is what the middleware does.
 */

const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
const start = readme.indexOf('## The HTTP API from scripts and browsers');
const section = start < 0 ? '' : readme.slice(start, readme.indexOf('\n## ', start + 1));

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        responses?: Record<
          string,
          {
            content?: Record<
              string,
              { schema?: { items?: { oneOf?: { properties: { event: { const: string } } }[] } } }
            >;
          }
        >;
      }
    >
  >;
};

t.test('the section exists and the documents it names are served', async (t) => {
  t.not(start, -1, 'README has the section');
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  for (const url of ['/openapi.json', '/v0/schema/openapi.json', '/v0/schema/events.json']) {
    t.ok(readme.includes(`\`${url}\``), `README names ${url}`);
    t.equal((await app.inject({ url })).statusCode, 200, `${url} is served`);
  }
});

t.test('every SSE stream is in the table with the frame names the OpenAPI document declares', async (t) => {
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  const doc = (await app.inject({ url: '/openapi.json' })).json<Doc>();
  const streams = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) => {
      const frames = op.responses?.['200']?.content?.['text/event-stream']?.schema?.items?.oneOf;
      return frames
        ? [{ route: `${method.toUpperCase()} ${path}`, names: frames.map((f) => f.properties.event.const) }]
        : [];
    }),
  );
  t.ok(streams.length >= 2, 'the city and supervisor streams');
  for (const { route, names } of streams) {
    const row = section.split('\n').find((l) => l.startsWith(`| \`${route}\``));
    t.ok(row, `${route} has a row`);
    const cells = (row ?? '').split('|').slice(2, -1);
    const named = cells.flatMap((c) => [...c.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
    for (const name of names) t.ok(named.includes(name), `${route}: frame \`${name}\` documented`);
    t.ok(section.includes(`addEventListener('${names[0]}'`) || names[0] === 'event', `${route}: example`);
  }
});

t.test('the CORS policy is the one stated', async (t) => {
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  const header = (name: string): string[] => {
    const m = new RegExp(`the ${name} ((?:\`[^\`]+\`(?:, | and )?)+)`).exec(section.replace(/\s+/g, ' '));
    return [...(m?.[1] ?? '').matchAll(/`([^`]+)`/g)].map((x) => x[1]!.toLowerCase()).sort();
  };
  for (const origin of ['http://localhost:5173', 'https://127.0.0.1', 'http://[::1]:8080']) {
    const res = await app.inject({ url: '/health', headers: { origin } });
    t.equal(res.headers['access-control-allow-origin'], origin, `${origin} is allowed`);
    t.same(
      String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/).sort(),
      header('request headers'),
      'the allowed request headers are the ones listed',
    );
    const pre = await app.inject({ method: 'OPTIONS', url: '/v0/city', headers: { origin } });
    t.equal(pre.statusCode, 204, 'a preflight answers 204');
  }
  for (const origin of ['http://example.com', 'http://localhost.example.com', 'null']) {
    const res = await app.inject({ url: '/health', headers: { origin } });
    t.equal(res.headers['access-control-allow-origin'], undefined, `${origin} gets no CORS headers`);
  }
  t.match(section, /Any other origin gets no\s+CORS headers/);
});
