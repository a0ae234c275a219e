import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { problem, sendProblem } from '../problem.ts';

/** The browser pages' files: plain ES modules, served as they are in the package (no build step). */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'actors.html': 'text/html; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'dom.js': 'text/javascript; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'actors.js': 'text/javascript; charset=utf-8',
};

/** `web/` of the package, from `http/routes/` (tsx) or `dist/http/routes/` (built). */
export function webRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    dir = dirname(dir);
    if (existsSync(join(dir, 'web', 'index.html'))) return join(dir, 'web');
  }
  throw new Error('web/ (the dashboard files) is missing from the package');
}

/**
 * The browser dashboard (`/dashboard/`) and the live actor view (`/dashboard/actors`), same origin as the
 * API so the pages need no CORS and may send `X-GC-Request`. The files are read once, at app build.
 * Not part of the API document.
 */
export function dashboardRoutes(app: FastifyInstance): void {
  const root = webRoot();
  const files = new Map(
    Object.entries(FILES).map(([name, type]) => [name, { type, body: readFileSync(join(root, name)) }]),
  );
  const send = (reply: FastifyReply, name: string): FastifyReply => {
    const file = files.get(name);
    if (!file) return sendProblem(reply, problem(404, `not_found: no dashboard file ${name}`));
    return reply.type(file.type).header('cache-control', 'no-cache').send(file.body);
  };
  const options = { schema: { hide: true }, exposeHeadRoute: false };
  app.get('/dashboard', options, async (_request, reply) => reply.redirect('/dashboard/', 302));
  app.get('/dashboard/', options, async (_request, reply) => send(reply, 'index.html'));
  app.get('/dashboard/actors', options, async (_request, reply) => send(reply, 'actors.html'));
  app.get<{ Params: { file: string } }>('/dashboard/:file', options, async (request, reply) =>
    send(reply, request.params.file),
  );
}
