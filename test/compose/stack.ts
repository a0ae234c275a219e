import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../cli/helpers/gc.ts';
import type { Bases } from './bases.ts';
import { docker, must, run } from './engine.ts';

/** The services of docker-compose.yml whose images the override swaps, by kind. */
const NATS = ['nats', 'nats-1', 'nats-2', 'nats-3'];
const SUPERVISORS = ['supervisor', 'sup-1', 'sup-2'];
const GATEWAY = 'gateway';

/** A free TCP port on loopback (the engine publishes there; it must not collide with anything running). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * One compose project of the tier: the repository's own docker-compose.yml plus an override that swaps
 * image names and build arguments and nothing else (the locally built bases, a tag of this run for the
 * supervisor image), under a project name of its own, so its containers, networks and volumes are its
 * own. `destroy` removes all of them and every image the run made (the cached bases stay).
 */
export class Stack {
  readonly name = `gcct${process.pid}x${randomBytes(3).toString('hex')}`;
  readonly image = `${this.name}/supervisor:test`;
  readonly token = randomBytes(16).toString('hex');
  readonly dir = mkdtempSync(join(tmpdir(), 'gc-compose-'));
  readonly override = join(this.dir, 'override.yml');
  port = 0;
  clusterPort = 0;
  #imagesBefore = new Set<string>();

  constructor(
    readonly compose: [string, string[]],
    readonly bases: Bases,
  ) {}

  /** Writes the override and notes which images exist, so `destroy` removes only what this run made. */
  async init(): Promise<void> {
    this.port = await freePort();
    this.clusterPort = await freePort();
    writeFileSync(this.override, overrideYaml(this.bases, this.image));
    this.#imagesBefore = new Set(await allImages());
  }

  get env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GC_PUBLISH_PORT: String(this.port),
      GC_CLUSTER_PUBLISH_PORT: String(this.clusterPort),
      GC_API_TOKEN: this.token,
    };
    for (const k of ['COMPOSE_FILE', 'COMPOSE_PROJECT_NAME', 'COMPOSE_PROFILES', 'DOCKER_HOST'])
      delete env[k];
    return env;
  }

  /** Runs `compose -p <name> -f docker-compose.yml -f <override> …args` (the profile flags first). */
  run(args: string[], timeoutMs = 300_000): Promise<string> {
    const [cmd, pre] = this.compose;
    const files = ['-p', this.name, '-f', join(ROOT, 'docker-compose.yml'), '-f', this.override];
    return must(cmd, [...pre, ...files, ...args], { env: this.env, cwd: ROOT, timeoutMs });
  }

  /** The container id of `service` (the first one), or undefined when there is none. */
  async container(service: string): Promise<string | undefined> {
    const [cmd, pre] = this.compose;
    const files = ['-p', this.name, '-f', join(ROOT, 'docker-compose.yml'), '-f', this.override];
    const r = await run(cmd, [...pre, ...files, '--profile', 'cluster', 'ps', '-q', service], {
      env: this.env,
      cwd: ROOT,
    });
    return r.stdout.trim().split('\n')[0] || undefined;
  }

  /**
   * Waits until `service`'s container reports healthy (its own HEALTHCHECK); throws with its last log lines
   * as soon as it exits or restarts instead (a supervisor that cannot start restarts in a loop).
   */
  async healthy(service: string, ms = 120_000): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      const id = await this.container(service);
      if (id) {
        const state = (
          await must('docker', [
            'inspect',
            '-f',
            '{{.State.Status}} {{.RestartCount}} {{if .State.Health}}{{.State.Health.Status}}{{end}}',
            id,
          ])
        ).trim();
        const [status, restarts, health] = state.split(' ');
        if (health === 'healthy') return;
        if (status === 'exited' || status === 'dead' || Number(restarts) > 0) {
          const logs = await run('docker', ['logs', '--tail', '20', id]);
          throw new Error(`${service} did not start (${state}):\n${(logs.stdout + logs.stderr).trim()}`);
        }
      }
      if (Date.now() > deadline) throw new Error(`${service} not healthy after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Every container, volume and network labelled with this project, as `kind id` lines. */
  async leftovers(): Promise<string[]> {
    const label = `label=com.docker.compose.project=${this.name}`;
    const out: string[] = [];
    for (const [kind, args] of [
      ['container', ['ps', '-aq', '--filter', label]],
      ['volume', ['volume', 'ls', '-q', '--filter', label]],
      ['network', ['network', 'ls', '-q', '--filter', label]],
    ] as const) {
      const ids = (await must('docker', [...args])).split('\n').filter(Boolean);
      out.push(...ids.map((id) => `${kind} ${id}`));
    }
    return out;
  }

  /** Images that exist now and did not before `init` (the supervisor image, its build stage, …). */
  async imagesMade(): Promise<string[]> {
    return (await allImages()).filter((id) => !this.#imagesBefore.has(id));
  }

  /** Removes everything the project made; safe to call twice and after a failed start. */
  async destroy(): Promise<void> {
    await run(
      this.compose[0],
      [
        ...this.compose[1],
        '-p',
        this.name,
        '-f',
        join(ROOT, 'docker-compose.yml'),
        '-f',
        this.override,
        '--profile',
        'cluster',
        'down',
        '-v',
        '--remove-orphans',
        '-t',
        '5',
      ],
      { env: this.env, cwd: ROOT, timeoutMs: 180_000 },
    );
    // Whatever compose did not take (a container the test started by hand, say), by label.
    for (const line of await this.leftovers()) {
      const [kind, id] = line.split(' ') as [string, string];
      await run('docker', kind === 'container' ? ['rm', '-f', '-v', id] : [kind, 'rm', id]);
    }
    await run('docker', ['rmi', '-f', this.image]);
    // Newest first: a build stage's images are the parents of later ones.
    for (let pass = 0; pass < 3; pass++) {
      const made = await this.imagesMade();
      if (made.length === 0) break;
      for (const id of made) await run('docker', ['rmi', '-f', id]);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Every image id the engine holds (intermediate ones included), newest first. */
async function allImages(): Promise<string[]> {
  return (await docker(['images', '-aq', '--no-trunc'])).split('\n').filter(Boolean);
}

/** The override: image names and build arguments only (test/compose/override.test.ts checks that). */
export function overrideYaml(bases: Bases, image: string): string {
  const lines = ['services:'];
  for (const s of NATS) lines.push(`  ${s}:`, `    image: ${bases.nats}`);
  for (const s of SUPERVISORS)
    lines.push(
      `  ${s}:`,
      `    image: ${image}`,
      '    build:',
      '      args:',
      `        NODE_IMAGE: ${bases.node}`,
    );
  lines.push(`  ${GATEWAY}:`, `    image: ${bases.nginx}`);
  return lines.join('\n') + '\n';
}

/**
 * An HTTP call to a published port, with the headers a client needs (token, the anti-CSRF marker). By
 * node:http rather than fetch: a connection the engine's port proxy accepts and then drops while the
 * container starts left a fetch pending with nothing to keep the process alive; here it is an error.
 */
export function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'x-gc-request': 'compose-tier' };
  if (token) headers.authorization = `Bearer ${token}`;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers, timeout: 15_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (s: string) => (text += s));
      res.once('error', reject);
      res.once('end', () => {
        let parsed: Record<string, unknown> = {};
        try {
          parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        } catch {
          parsed = { text };
        }
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers: out, body: parsed });
      });
    });
    req.once('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 15 s`)));
    req.once('error', reject);
    req.end(payload);
  });
}

export { must };

/**
 * What an earlier run that was killed (tap's timeout, a lost machine) left: every `gcct…` compose project's
 * containers, volumes and networks and every `gcct…/` image; under CI also the dangling images of its builds
 * (CI's engine serves this tier only; a developer's own dangling images are left alone).
 */
export async function sweepStale(): Promise<string[]> {
  const ours = /^gcct\d+x[0-9a-f]{6}$/;
  const removed: string[] = [];
  for (const [kind, list, rm] of [
    ['container', ['ps', '-a'], ['rm', '-f', '-v']],
    ['volume', ['volume', 'ls'], ['volume', 'rm', '-f']],
    ['network', ['network', 'ls'], ['network', 'rm']],
  ] as const) {
    const rows = await docker([
      ...list,
      '--filter',
      'label=com.docker.compose.project',
      '--format',
      kind === 'volume'
        ? '{{.Name}} {{.Label "com.docker.compose.project"}}'
        : '{{.ID}} {{.Label "com.docker.compose.project"}}',
    ]);
    for (const [id, project] of rows
      .split('\n')
      .filter(Boolean)
      .map((r) => r.split(' '))) {
      if (!id || !ours.test(project ?? '')) continue;
      await run('docker', [...rm, id]);
      removed.push(`${kind} ${id}`);
    }
  }
  const images = (await docker(['images', '--format', '{{.Repository}}:{{.Tag}}'])).split('\n');
  for (const image of images.filter((i) => /^gcct\d+x[0-9a-f]{6}\//.test(i))) {
    await run('docker', ['rmi', '-f', image]);
    removed.push(`image ${image}`);
  }
  if (process.env.CI) {
    for (const id of (await docker(['images', '-q', '--filter', 'dangling=true']))
      .split('\n')
      .filter(Boolean)) {
      await run('docker', ['rmi', '-f', id]);
      removed.push(`image ${id}`);
    }
  }
  return removed;
}
