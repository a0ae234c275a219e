/**
 * The processes of the scale-out benchmark: a three-node JetStream cluster of `nats-server`s on loopback
 * (random ports, temp stores) and supervisors in one cluster, each a child process (the built
 * `dist/http/main.js`, or the sources through tsx when the benchmark runs from `.ts`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

const here = dirname(fileURLToPath(import.meta.url));
const MAIN = import.meta.url.endsWith('.ts')
  ? ['--import', 'tsx', join(here, '..', 'http', 'main.ts')]
  : [join(here, '..', 'http', 'main.js')];

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = tcpConnect({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** Everything the benchmark started, to be stopped in `close()`. */
export class Processes {
  readonly #children: ChildProcess[] = [];
  readonly #dirs: string[] = [];

  /** Starts three clustered `nats-server -js` nodes; resolves their client URLs once JetStream answers. */
  async natsCluster(): Promise<string> {
    const routes = await Promise.all([freePort(), freePort(), freePort()]);
    const clients = await Promise.all([freePort(), freePort(), freePort()]);
    const routeUrls = routes.map((p) => `nats://127.0.0.1:${p}`).join(',');
    for (const [i, port] of clients.entries()) {
      const dir = mkdtempSync(join(tmpdir(), 'gc-bench-nats-'));
      this.#dirs.push(dir);
      const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir, '-n', `bench-n${i + 1}`];
      args.push(
        '--cluster_name',
        'bench',
        '--cluster',
        `nats://127.0.0.1:${routes[i]}`,
        '--routes',
        routeUrls,
      );
      this.#children.push(spawn(process.env.NATS_SERVER_BIN ?? 'nats-server', args, { stdio: 'ignore' }));
    }
    for (const port of clients) while (!(await accepts(port))) await sleep(20);
    const urls = clients.map((p) => `nats://127.0.0.1:${p}`).join(',');
    const nc = await connect({ servers: urls.split(','), maxReconnectAttempts: -1 });
    for (const deadline = Date.now() + 30_000; ;) {
      try {
        await (await jetstreamManager(nc, { timeout: 2000 })).getAccountInfo();
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await sleep(200);
      }
    }
    await nc.close();
    return urls;
  }

  /** Starts a supervisor of cluster `bench` and resolves its API URL and process once it listens. */
  async supervisor(env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess; home: string }> {
    const home = mkdtempSync(join(tmpdir(), 'gc-bench-sup-'));
    this.#dirs.push(home);
    const child = spawn(process.execPath, MAIN, {
      env: { ...process.env, GC_HOME: home, GC_BIND: '127.0.0.1', GC_PORT: '0', ...env },
      // Kept for a failed run's post-mortem (BENCH_KEEP_LOGS=1 leaves the temp dirs in place).
      stdio: ['ignore', 'ignore', openSync(join(home, 'stderr.log'), 'a')],
    });
    this.#children.push(child);
    for (const deadline = Date.now() + 60_000; ; await sleep(25)) {
      if (child.exitCode !== null) throw new Error(`supervisor exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('supervisor did not start within 60 s');
      try {
        const info = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8')) as {
          pid: number;
          url: string;
        };
        if (info.pid === child.pid) return { url: info.url, child, home };
      } catch {
        // Not written yet.
      }
    }
  }

  /** A temp directory removed at `close()`. */
  tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'gc-bench-cities-'));
    this.#dirs.push(dir);
    return dir;
  }

  async close(): Promise<void> {
    await Promise.all(
      this.#children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGKILL');
          }),
      ),
    );
    if (!process.env.BENCH_KEEP_LOGS)
      for (const dir of this.#dirs) rmSync(dir, { recursive: true, force: true });
  }
}
