import { GcCommand } from '../../command.ts';
import { CliError } from '../../errors.ts';
import { supervisorConfigFlags } from '../../supervisorFlags.ts';

/** `gc supervisor run`: the supervisor in the foreground until SIGTERM or SIGINT. */
export default class SupervisorRun extends GcCommand {
  static override summary = 'Run the supervisor in the foreground.';
  static override description = `Opens the journal (the file journal under $GC_HOME, or JetStream with --nats-url), replays every city and request, serves the HTTP API, and records its {pid, url} in $GC_HOME/supervisor.json. SIGTERM or SIGINT stops it gracefully (open streams get a short grace, the journal is closed); a second signal exits at once.

Configuration: flags override the environment (GC_HOME, GC_BIND, GC_PORT, GC_NATS_URL, GC_NATS_PREFIX, GC_TICK, GC_HEARTBEAT, GC_ALLOW_MUTATIONS, GC_INSPECT), which overrides $GC_HOME/supervisor.toml. Bound to a non-loopback address the API is read-only unless GC_ALLOW_MUTATIONS=1.`;
  static override examples = [
    {
      description: 'The default: 127.0.0.1:8372, file journal in ~/.gc',
      command: '<%= config.bin %> supervisor run',
    },
    {
      description: 'A throw-away supervisor on any free port (its URL is in /tmp/gc/supervisor.json)',
      command: '<%= config.bin %> supervisor run --home /tmp/gc --port 0 --tick 500ms',
    },
    {
      description: 'Backed by JetStream',
      command: '<%= config.bin %> supervisor run --nats-url nats://127.0.0.1:4222 --heartbeat 5s',
    },
  ];
  static override flags = supervisorConfigFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(SupervisorRun);
    // The one place the CLI reaches past the HTTP API: `run` *is* the supervisor. The module is loaded
    // here, not at the top, so that no other `gc` command pays for Fastify, NATS and the actors at
    // start-up. It re-exports loadConfig/parseDuration: flags, environment and supervisor.toml are merged
    // in one place, never a second way in the CLI.
    // eslint-disable-next-line import-x/no-restricted-paths -- `run` is the supervisor itself
    const { runSupervisor, loadConfig, parseDuration } = await import('../../../http/main.ts');
    const duration = (name: string, v: string | undefined): number | undefined => {
      if (v === undefined) return undefined;
      try {
        return parseDuration(v);
      } catch (err) {
        throw new CliError(`invalid --${name} "${v}": ${(err as Error).message}`);
      }
    };
    let config;
    try {
      config = loadConfig(process.env, {
        ...(flags.home === undefined ? {} : { home: flags.home }),
        ...(flags.bind === undefined ? {} : { bind: flags.bind }),
        ...(flags.port === undefined ? {} : { port: flags.port }),
        ...(flags['nats-url'] === undefined ? {} : { natsUrl: flags['nats-url'] }),
        ...(flags['nats-prefix'] === undefined ? {} : { natsPrefix: flags['nats-prefix'] }),
        ...(flags.tick === undefined ? {} : { tickMs: duration('tick', flags.tick) }),
        ...(flags.heartbeat === undefined ? {} : { heartbeatMs: duration('heartbeat', flags.heartbeat) }),
      });
    } catch (err) {
      if (err instanceof CliError) throw err;
      throw new CliError(`configuration: ${(err as Error).message}`);
    }
    // Signals are taken before starting: one that arrives during start-up stops the supervisor as soon as
    // it is up (the default action would kill it with supervisor.json left behind).
    let signalled: NodeJS.Signals | undefined;
    let onStop: (() => void) | undefined;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (signalled) {
        this.note(`${signal} again, exiting now`);
        process.exit(1);
      }
      signalled = signal;
      this.note(`${signal}, stopping`);
      onStop?.();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    const running = await runSupervisor(config, { inspect: flags.inspect ?? process.env.GC_INSPECT });
    this.note(
      `listening on ${running.url} (home ${config.home}, ${config.natsUrl ? `JetStream ${config.natsUrl}` : 'file journal'})`,
    );
    await new Promise<void>((resolve) => {
      onStop = resolve;
      if (signalled) resolve();
    });
    await running.close();
    this.note('stopped');
  }
}
