import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { CliError } from '../../errors.ts';
import { connectableUrl, gcHome, readSupervisorRecord } from '../../home.ts';
import { findSupervisor, healthy, removePidFile, running } from '../../supervisorProcess.ts';
import { configArgs, supervisorConfigFlags } from '../../supervisorFlags.ts';
import { parseTimeout } from '../city/create.ts';

/** The last lines of the supervisor log, to explain a failed start. */
function logTail(path: string): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-5).join('\n');
  } catch {
    return '';
  }
}

/** `gc supervisor start`: `gc supervisor run` in the background. */
export default class SupervisorStart extends GcCommand {
  static override summary = 'Start the supervisor in the background.';
  static override description = `Spawns "gc supervisor run" detached, with its pid in $GC_HOME/supervisor.pid and its output appended to $GC_HOME/supervisor.log, waits until it answers GET /health, and prints its URL. When a supervisor of this home is already running, prints its URL and exits 0. Flags are passed to "gc supervisor run".`;
  static override examples = [
    {
      description: 'Start on the default address (127.0.0.1:8372)',
      command: '<%= config.bin %> supervisor start',
    },
    {
      description: 'A private home on any free port, backed by JetStream',
      command: '<%= config.bin %> supervisor start --home /tmp/gc --port 0 --nats-url nats://127.0.0.1:4222',
    },
  ];
  static override flags = {
    ...supervisorConfigFlags,
    timeout: Flags.string({ description: 'how long to wait for /health', default: '30s' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SupervisorStart);
    const timeoutMs = parseTimeout(flags.timeout);
    const home = gcHome(process.env, flags.home);
    const existing = findSupervisor(home);
    if (existing?.url !== undefined) {
      this.note(`already running (pid ${existing.pid})`);
      return this.out(existing.url);
    }
    if (existing)
      throw new CliError(`a supervisor (pid ${existing.pid}) is starting but has not recorded its URL yet`);
    removePidFile(home);

    mkdirSync(home, { recursive: true });
    const logPath = join(home, 'supervisor.log');
    const log = openSync(logPath, 'a');
    const child = spawn(
      process.execPath,
      [join(this.config.root, 'bin', 'gc.js'), 'supervisor', 'run', ...configArgs({ ...flags, home })],
      { detached: true, stdio: ['ignore', log, log], env: process.env },
    );
    closeSync(log);
    const pid = child.pid;
    if (pid === undefined) throw new CliError('could not spawn the supervisor');
    writeFileSync(join(home, 'supervisor.pid'), `${pid}\n`);
    let exited: string | undefined;
    child.once('exit', (code, signal) => (exited = signal ?? `exit status ${code}`));
    child.unref();

    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (exited !== undefined || !running(pid)) {
        // It may be a zombie not yet reaped: give the exit event a moment, for the status it carries.
        if (exited === undefined) await sleep(200);
        removePidFile(home);
        throw new CliError(
          `the supervisor exited (${exited ?? 'gone'}); see ${logPath}:\n${logTail(logPath)}`,
        );
      }
      const rec = readSupervisorRecord(home);
      if (rec?.pid === pid) {
        const url = connectableUrl(rec.url);
        if (await healthy(url)) return this.out(url);
      }
      await sleep(50);
    }
    throw new CliError(
      `the supervisor (pid ${pid}) did not answer /health within ${flags.timeout}; see ${logPath}`,
    );
  }
}
