/**
 * ACP figures (issue 29): a prompt's latency to its first `session/update`, through the supervisor's ACP
 * runtime against the SDK's own client talking to the same mock agent with no supervisor (the floor, same
 * run); and, with 100 ACP sessions in a city of a real supervisor, its RSS per session and its reconciler
 * tick p99 (acpScale.ts says how each is measured). Prints one JSON line; `BENCH_QUICK=1` uses small sizes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { AcpProvider } from '../actors/sessions/runtime/acpProvider.ts';
import { acpScale } from './acpScale.ts';
import { mockAcpAgentCommand, mockAcpAgentPath } from '../actors/sessions/runtime/presets.ts';

const quick = process.env.BENCH_QUICK === '1';
const PROMPTS = quick ? 50 : 300;
const SESSIONS = quick ? 20 : 100;
const TICKS = quick ? 60 : 300;

const p99 = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;
const ms = (ns: bigint) => Number(ns) / 1e6;

/** The floor: the SDK client alone, prompt sent → first session/update received. */
async function sdkAlone(dir: string): Promise<number[]> {
  const proc = spawn(process.execPath, [mockAcpAgentPath(), '--log-dir', dir], { cwd: dir });
  let onUpdate: (() => void) | undefined;
  const conn = client({ name: 'bench' })
    .onNotification(methods.client.session.update, () => onUpdate?.())
    .connect(
      ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout) as ReadableStream<Uint8Array>),
    );
  await conn.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const { sessionId } = await conn.agent.request(methods.agent.session.new, { cwd: dir, mcpServers: [] });
  const out: number[] = [];
  for (let i = 0; i < PROMPTS; i++) {
    const started = process.hrtime.bigint();
    const first = new Promise<void>((r) => (onUpdate = r));
    const turn = conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: `p${i}` }],
    });
    await first;
    out.push(ms(process.hrtime.bigint() - started));
    await turn;
  }
  proc.kill();
  return out;
}

/** Through the runtime: nudge → the update folded into the session's screen. */
async function throughRuntime(dir: string): Promise<number[]> {
  const provider = new AcpProvider();
  const identity = { sessionId: 'b', instanceToken: 't', city: 'bench' };
  await provider.start('lat', { command: mockAcpAgentCommand('--log-dir', dir), workDir: dir, identity });
  const out: number[] = [];
  for (let i = 0; i < PROMPTS; i++) {
    const wanted = `echo: p${i}`;
    let stop = () => {};
    const seen = new Promise<void>((resolve) => {
      // The fold of the update, as the session's screen has it: no polling in between.
      stop = provider.onChange('lat', () => {
        if (provider.peekNow('lat', 3).includes(wanted)) resolve();
      });
    });
    const started = process.hrtime.bigint();
    await provider.nudge('lat', `p${i}`);
    await seen;
    out.push(ms(process.hrtime.bigint() - started));
    stop();
    while ((await provider.peek('lat', 1)) !== '❯') await new Promise((r) => setTimeout(r, 1));
  }
  await provider.close();
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'gc-bench-acp-'));
try {
  // The supervisor at scale first, on a fresh process; then the two latencies, the floor first.
  const scale = await acpScale(join(dir, 'scale'), SESSIONS, TICKS);
  const floor = await sdkAlone(dir);
  const ours = await throughRuntime(dir);
  const figures = [
    {
      name: `ACP prompt → first session/update p99 (${PROMPTS} prompts)`,
      value: +p99(ours).toFixed(3),
      unit: 'ms',
      floor: +p99(floor).toFixed(3),
      floor_name: 'the SDK client alone, same mock agent',
      target: '≤ 2× floor',
    },
    {
      name: `supervisor RSS per ACP session (${scale.sessions} running, each answered a prompt)`,
      value: +scale.rssPerSessionMb.toFixed(3),
      unit: 'MB',
      target: '≤ 5 MB',
    },
    {
      name: `reconciler tick p99, ${scale.sessions} idle ACP sessions (${TICKS} passes)`,
      value: scale.idleTick.p99,
      unit: 'ms',
      floor: scale.idleObserve.p99,
      floor_name: "the ACP runtime's batched observe() alone p99",
      target: '≤ 50 ms',
    },
    {
      name: `reconciler tick CPU time p99, ${scale.sessions} idle ACP sessions`,
      value: scale.idleCpu.p99,
      unit: 'ms',
      floor: scale.idleObserve.p99,
      floor_name: "the ACP runtime's batched observe() alone p99 (wall)",
      target: '≤ 50 ms',
    },
    {
      name: `reconciler tick CPU time p99, ${scale.sessions} ACP sessions each answering a prompt`,
      value: scale.busyCpu.p99,
      unit: 'ms',
      floor: scale.busyObserve.p99,
      floor_name: "the ACP runtime's batched observe() alone p99 (wall)",
      target: '≤ 50 ms',
    },
    {
      name: `reconciler tick p99, ${scale.sessions} ACP sessions each answering a prompt (${TICKS} passes)`,
      value: scale.busyTick.p99,
      unit: 'ms',
      floor: scale.busyObserve.p99,
      floor_name: "the ACP runtime's batched observe() alone p99",
      target: '≤ 50 ms',
    },
  ];
  console.log(JSON.stringify({ name: 'acp', figures, scale, load: loadavg() }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
