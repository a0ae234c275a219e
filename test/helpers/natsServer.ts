import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect as tcpConnect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** A `nats-server -js` child process on a loopback port with its own store directory. */
export interface NatsServerProcess {
  /** `nats://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** The `-sd` directory; it outlives `stop()` so a restart finds the same streams. */
  readonly storeDir: string;
  /** Stops the server gracefully (SIGTERM, then SIGKILL after 5 s); resumes a paused one first. Idempotent. */
  stop(): Promise<void>;
  /**
   * Freezes the server (SIGSTOP): its sockets stay open and the kernel still accepts bytes, but nothing
   * is read, stored or answered, like a broker stalled on a slow disk or a GC pause.
   */
  pause(): Promise<void>;
  /** Thaws a paused server (SIGCONT): it reads and answers what queued up meanwhile. */
  resume(): Promise<void>;
  /** Starts it again on the same port and store dir; resolves once it accepts connections. */
  start(): Promise<void>;
  /** `stop()` then `start()`: a broker restart that keeps every stream. */
  restart(): Promise<void>;
  /** Stops the server and deletes its store directory. */
  destroy(): Promise<void>;
}

/**
 * Finds the `nats-server` binary: `$NATS_SERVER_BIN` when set, else the first `nats-server` on `PATH`.
 * Returns undefined when there is none. Reads the file system only.
 */
export function findNatsServer(): string | undefined {
  const explicit = process.env.NATS_SERVER_BIN;
  if (explicit) return existsSync(explicit) ? explicit : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'nats-server');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Asks the OS for a free loopback port. The port is released again before this resolves. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Runs the server (`$0 $@`) under a shell that stops it when its stdin closes, which happens when the
 * test process exits however it dies (even SIGKILL on a tap timeout), so no server outlives its test.
 * The shell exits with the server; SIGTERM to the shell kills the server at once. Its first stdout line
 * is the server's pid (`pause` and `resume` signal the server itself, not the shell).
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$0" "$@" </dev/null >/dev/null 3<&- & pid=$!',
  'echo $pid',
  "trap 'kill -KILL $pid 2>/dev/null' TERM",
  '{ read _ <&3; kill -TERM $pid 2>/dev/null; } &',
  'watch=$!',
  'wait $pid; status=$?',
  'kill $watch 2>/dev/null',
  'exit $status',
].join('\n');

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = tcpConnect({ port, host: '127.0.0.1' });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/**
 * Resolves once every thread of `pid` is stopped. `kill(SIGSTOP)` returns before the signal is taken: on
 * a loaded machine a thread of the server can still run (and answer a publish) for some milliseconds, so
 * a test that freezes the broker must not send anything before this.
 */
async function stoppedEverywhere(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + 5000;
  for (;;) {
    const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    const states = await Promise.all(
      tasks.map((task) =>
        // The state is the field after the parenthesised command name.
        readFile(`/proc/${pid}/task/${task}/stat`, 'utf8').then(
          (stat) => stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3),
          () => 'T',
        ),
      ),
    );
    if (states.every((state) => state === 'T' || state === 't')) return;
    if (Date.now() > deadline)
      throw new Error(`nats-server ${pid} did not stop: thread states ${states.join('')}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/**
 * Starts `nats-server -js -a 127.0.0.1 -p <free port> -sd <temp dir>` and resolves once it accepts TCP
 * connections (JetStream has recovered its streams by then: the server enables JetStream before it
 * starts its accept loop).
 *
 * Effects: spawns a child process and creates a temp directory; call `destroy()` to undo both.
 * Throws when the binary is missing or the server exits or stays unreachable for 10 s; the error
 * carries the tail of the server's log.
 */
export async function startNatsServer(
  bin = findNatsServer(),
  /** More server flags (a cluster node's `--cluster`, `--routes`, `-n`, …). */
  extraArgs: readonly string[] = [],
): Promise<NatsServerProcess> {
  if (!bin) throw new Error('nats-server not found on PATH (set NATS_SERVER_BIN to point at it)');
  const binary = bin;
  const storeDir = await mkdtemp(join(tmpdir(), 'gc-nats-'));
  let port = 0;
  let child: ChildProcess | undefined;
  let serverPid: Promise<number> | undefined;
  let paused = false;
  let log = '';

  async function launch(): Promise<void> {
    log = '';
    const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir, ...extraArgs];
    const proc = spawn('sh', ['-c', WATCHDOG, binary, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    child = proc;
    paused = false;
    proc.stdin?.on('error', () => {});
    proc.stdout?.setEncoding('utf8');
    let out = '';
    serverPid = new Promise((resolve) => {
      proc.stdout?.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('\n')) resolve(Number(out.split('\n')[0]));
      });
    });
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (chunk: string) => {
      // Keep only the tail: it is for diagnosing a failed start, not a full log.
      log = (log + chunk).slice(-8192);
    });
    const exited = new Promise<never>((_, reject) => {
      proc.once('exit', (code, signal) =>
        reject(new Error(`nats-server exited early (code ${code}, signal ${signal}):\n${log}`)),
      );
      proc.once('error', reject);
    });
    exited.catch(() => {});
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (await Promise.race([canConnect(port), exited])) return;
      await Promise.race([new Promise((r) => setTimeout(r, 20)), exited]);
    }
    await stop();
    throw new Error(`nats-server did not accept connections on port ${port} within 10s:\n${log}`);
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    // A stopped process would hold SIGTERM until it is continued.
    if (paused) await signalServer('SIGCONT');
    paused = false;
    const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    // Closing the watchdog's stdin makes it SIGTERM the server (a graceful stop that flushes the store);
    // SIGTERM to the watchdog itself makes it SIGKILL the server.
    proc.stdin?.end();
    const timer = setTimeout(() => proc.kill('SIGTERM'), 5000);
    await gone;
    clearTimeout(timer);
  }

  async function signalServer(signal: NodeJS.Signals): Promise<void> {
    const pid = await serverPid;
    if (pid === undefined || Number.isNaN(pid)) throw new Error('nats-server pid unknown');
    process.kill(pid, signal);
  }

  async function start(): Promise<void> {
    if (child) return;
    await launch();
  }

  // A free port can be taken between probing and binding; a fresh one on the next attempt avoids
  // a spurious failure (this retries the server's start, never a test).
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (err) {
      await stop();
      if (attempt >= 3) {
        await rm(storeDir, { recursive: true, force: true });
        throw err;
      }
    }
  }

  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    stop,
    start,
    pause: async () => {
      if (!child) throw new Error('nats-server is not running');
      await signalServer('SIGSTOP');
      paused = true;
      await stoppedEverywhere(await serverPid);
    },
    resume: async () => {
      if (!paused) return;
      await signalServer('SIGCONT');
      paused = false;
    },
    restart: async () => {
      await stop();
      await start();
    },
    destroy: async () => {
      await stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
