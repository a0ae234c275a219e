/**
 * The fan-out harness the stream benchmarks share (bench/events.ts for a city stream,
 * bench/supervisorStream.ts for the supervisor stream): subscriber processes (eventsFanoutClient.ts) on one
 * URL, events produced at a paced rate, and what every subscriber got, with the server's CPU and RSS.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { detachedSupervisor } from '../actors/supervisor/detachedSupervisor.ts';
import type { LiveCities } from '../actors/supervisor/liveCities.ts';
import { loadConfig } from '../actors/supervisor/supervisorConfig.ts';
import { buildApp } from '../http/app.ts';
import type { FanoutClientResult } from './eventsFanoutClient.ts';

const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** One fan-out run: `clients` subscribers of one stream, `events` appended at `rate` per second. */
export interface FanoutRun {
  clients: number;
  rate_per_s: number;
  events_each: number;
  client_processes: number;
  received_min: number;
  received_max: number;
  all_received: boolean;
  /** Frames delivered to all clients together per second, from the first append to the last frame. */
  deliveries_per_s: number;
  /** What was asked: clients × rate. */
  offered_per_s: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  server_cpu_percent: number;
  /**
   * Frames delivered per second of the server's CPU: the figure that survives a loaded machine (the
   * server's share of the cores, and so every wall-clock figure, depends on what else runs).
   */
  frames_per_server_cpu_s: number;
  client_cpu_percent_max: number;
  server_rss_mb: { before: number; connected: number; max: number };
  connect_ms: number;
}

/** Subscribers per client process: each holds this many sockets and parses their frames. */
export const CLIENTS_PER_PROCESS = 2500;

/** The open-file limit of this process (soft), from /proc; Infinity where it cannot be read. */
export function openFileLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? Infinity : Number(soft);
  } catch {
    return Infinity;
  }
}

/**
 * Runs subscriber processes against `url` (`clients` in all), then calls `produce(i, t)` for `events`
 * events paced at `rate` per second (`t` the wall-clock send instant the clients time against), and
 * gathers what every client received. Production yields to the event loop between events, so a server
 * that falls behind keeps writing; collection ends when every client has every event or `drainMs` after
 * the last event, whichever is first. Every loop is bounded in count and time.
 */
export async function fanoutRun(
  url: string,
  clients: number,
  rate: number,
  events: number,
  produce: (i: number, t: number) => Promise<void>,
  drainMs = 20_000,
): Promise<FanoutRun> {
  const here = new URL('.', import.meta.url);
  const script = new URL(
    import.meta.url.endsWith('.ts') ? 'eventsFanoutClient.ts' : 'eventsFanoutClient.js',
    here,
  );
  const shares: number[] = [];
  for (let left = clients; left > 0; left -= CLIENTS_PER_PROCESS)
    shares.push(Math.min(left, CLIENTS_PER_PROCESS));
  const rssBefore = process.memoryUsage().rss;
  type Message = { ready?: number; result?: FanoutClientResult; error?: string };
  const inbox: Message[] = [];
  let wake = (): void => {};
  const children = shares.map((share) => {
    const child = fork(script, [url, String(share)], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.on('message', (m: Message) => {
      inbox.push(m);
      wake();
    });
    return child;
  });
  /** Waits for `count` messages carrying `what`, until `deadline` (ms, performance clock). */
  const collect = async <K extends 'ready' | 'result'>(what: K, count: number, deadline: number) => {
    const got: Message[] = [];
    while (got.length < count) {
      const m = inbox.shift();
      if (m?.error) throw new Error(m.error);
      if (m?.[what] !== undefined) {
        got.push(m);
        continue;
      }
      if (m) continue;
      if (performance.now() > deadline) break;
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 50);
      });
    }
    return got;
  };
  try {
    const connectStarted = performance.now();
    const ready = await collect('ready', children.length, connectStarted + 120_000);
    if (ready.length < children.length)
      throw new Error(`fan-out: ${clients} subscribers not connected in 120 s`);
    const connectMs = performance.now() - connectStarted;
    const rssConnected = process.memoryUsage().rss;
    for (const child of children) child.send({ start: events });
    let rssMax = rssConnected;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let next = 0; next < events;) {
      const wait = started + (next * 1000) / rate - performance.now();
      // Then every event that is due, in this turn of the loop: a source that outpaces the writer hands it
      // several events at once, as requests arriving together would. The naive writer still writes each
      // one to each client; the supervisor's streams may join them.
      await new Promise((r) => (wait > 1 ? setTimeout(r, wait) : setImmediate(r)));
      const due = Math.min(events, Math.floor(((performance.now() - started) * rate) / 1000) + 1);
      const t = performance.timeOrigin + performance.now();
      const batch: Array<Promise<void>> = [];
      for (; next < due; next++) batch.push(produce(next, t));
      await Promise.all(batch);
      rssMax = Math.max(rssMax, process.memoryUsage().rss);
    }
    const produced = performance.now();
    let results = await collect('result', children.length, produced + drainMs);
    if (results.length < children.length) {
      for (const child of children) child.send({ stop: true });
      results = results.concat(
        // A process that was handed a large backlog (the naive writer ignores backpressure) answers the stop
        // only once it has read what is queued for it: 10 s lost whole runs.
        await collect('result', children.length - results.length, performance.now() + 60_000),
      );
    }
    rssMax = Math.max(rssMax, process.memoryUsage().rss);
    const cpu = process.cpuUsage(cpuBefore);
    const parts = results.map((m) => m.result!);
    if (parts.length < children.length) throw new Error('fan-out: a subscriber process sent no result');
    const startedAt = performance.timeOrigin + started;
    const lastAt = Math.max(...parts.map((p) => p.last_at));
    const total = parts.reduce((sum, p) => sum + p.received_total, 0);
    const latencies = Float64Array.from(parts.flatMap((p) => p.latencies)).sort();
    const q = (p: number): number =>
      latencies.length === 0
        ? NaN
        : round(latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)]!);
    return {
      clients,
      rate_per_s: rate,
      events_each: events,
      client_processes: children.length,
      received_min: Math.min(...parts.map((p) => p.received_min)),
      received_max: Math.max(...parts.map((p) => p.received_max)),
      all_received: parts.every((p) => p.all_received),
      deliveries_per_s: Math.round(total / (Math.max(lastAt - startedAt, 1) / 1000)),
      offered_per_s: clients * rate,
      p50_ms: q(0.5),
      p99_ms: q(0.99),
      max_ms: round(latencies[latencies.length - 1] ?? NaN),
      server_cpu_percent: Math.round(((cpu.user + cpu.system) / 1000 / (performance.now() - started)) * 100),
      frames_per_server_cpu_s: Math.round(total / Math.max((cpu.user + cpu.system) / 1e6, 1e-3)),
      client_cpu_percent_max: Math.max(...parts.map((p) => p.client_cpu_percent)),
      server_rss_mb: { before: mb(rssBefore), connected: mb(rssConnected), max: mb(rssMax) },
      connect_ms: Math.round(connectMs),
    };
  } finally {
    for (const child of children) child.kill();
  }
}

export const round = (v: number): number => Math.round(v * 100) / 100;

/** One run's figures on one progress line, so a run that fails later still leaves them. */
export const summary = (r: FanoutRun): string =>
  `${r.deliveries_per_s} frames/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, all ${r.all_received}, ` +
  `server cpu ${r.server_cpu_percent}% (${r.frames_per_server_cpu_s} frames/cpu-s), clients cpu max ${r.client_cpu_percent_max}%, rss ${r.server_rss_mb.max} MB`;

/** A bench event's payload: the send instant the subscribers time against (a custom type, served as is). */
export const tick = (t: number) => ({ type: 'bench.tick', actor: 'bench', payload: { t } });

/** The supervisor's HTTP app over `cities`, listening on a random loopback port. */
export async function startApp(cities: LiveCities) {
  const app = await buildApp({
    config: { ...loadConfig({ GC_HOME: '/nonexistent-gc-home' }), heartbeatMs: 15_000 },
    cities,
    readOnly: false,
    supervisor: detachedSupervisor(cities),
  });
  // The naive writer's backlog: 10,000 subscribers connect at once, and Fastify's default (511) resets some.
  const address = await app.listen({ host: '127.0.0.1', port: 0, backlog: 4096 });
  return { app, base: address.replace('localhost', '127.0.0.1') };
}
