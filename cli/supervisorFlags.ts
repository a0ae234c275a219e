import * as Flags from '@oclif/core/flags';

/**
 * The configuration flags of `gc supervisor run`, which `start` passes through to it. Each overrides its
 * environment variable, which overrides `$GC_HOME/supervisor.toml`.
 */
export const supervisorConfigFlags = {
  home: Flags.string({ description: 'supervisor home [env: GC_HOME] (default: ~/.gc)' }),
  bind: Flags.string({ description: 'listen address [env: GC_BIND] (default: 127.0.0.1)' }),
  port: Flags.integer({
    description: 'listen port, 0 for any free port [env: GC_PORT] (default: 8372)',
    min: 0,
    max: 65535,
  }),
  'nats-url': Flags.string({
    description: 'use the JetStream journal at this URL [env: GC_NATS_URL] (default: file journal)',
  }),
  'nats-prefix': Flags.string({
    description: 'namespace of the JetStream streams and subjects [env: GC_NATS_PREFIX] (default: gc)',
  }),
  tick: Flags.string({ description: 'reconciler interval, e.g. 2s [env: GC_TICK]' }),
  heartbeat: Flags.string({ description: 'SSE heartbeat interval, e.g. 15s [env: GC_HEARTBEAT]' }),
  inspect: Flags.string({
    description:
      'send every actor to the XState inspector at this WebSocket URL, e.g. ws://localhost:8080 [env: GC_INSPECT]',
  }),
};

/** The parsed values of `supervisorConfigFlags`. */
export interface SupervisorConfigFlags {
  home?: string | undefined;
  bind?: string | undefined;
  port?: number | undefined;
  'nats-url'?: string | undefined;
  'nats-prefix'?: string | undefined;
  tick?: string | undefined;
  heartbeat?: string | undefined;
  inspect?: string | undefined;
}

/** The flags again as command-line arguments (for `start` to hand to `run`). Pure. */
export function configArgs(flags: SupervisorConfigFlags): string[] {
  const out: string[] = [];
  for (const key of [
    'home',
    'bind',
    'port',
    'nats-url',
    'nats-prefix',
    'tick',
    'heartbeat',
    'inspect',
  ] as const) {
    const v = flags[key];
    if (v !== undefined) out.push(`--${key}`, String(v));
  }
  return out;
}
