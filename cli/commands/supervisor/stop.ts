import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { CliError } from '../../errors.ts';
import { gcHome } from '../../home.ts';
import { findSupervisor, removePidFile, waitForExit } from '../../supervisorProcess.ts';
import { parseTimeout } from '../city/create.ts';

/** `gc supervisor stop`: SIGTERM (a graceful stop) and wait for the process to exit. */
export default class SupervisorStop extends GcCommand {
  static override summary = 'Stop the running supervisor gracefully.';
  static override description = `Sends SIGTERM to the supervisor of $GC_HOME (the pid in supervisor.pid, else the one it recorded in supervisor.json) and waits for it to exit. Exits 1 when no supervisor is running or it does not exit in time.`;
  static override examples = [
    { description: 'Stop the supervisor of ~/.gc', command: '<%= config.bin %> supervisor stop' },
    {
      description: 'Stop the supervisor of another home',
      command: '<%= config.bin %> supervisor stop --home /tmp/gc',
    },
  ];
  static override flags = {
    home: Flags.string({ description: 'supervisor home [env: GC_HOME] (default: ~/.gc)' }),
    timeout: Flags.string({ description: 'how long to wait for the process to exit', default: '30s' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SupervisorStop);
    const timeoutMs = parseTimeout(flags.timeout);
    const home = gcHome(process.env, flags.home);
    const sup = findSupervisor(home);
    if (!sup) {
      removePidFile(home);
      throw new CliError('supervisor is not running');
    }
    process.kill(sup.pid, 'SIGTERM');
    if (!(await waitForExit(sup.pid, timeoutMs))) {
      throw new CliError(`the supervisor (pid ${sup.pid}) did not exit within ${flags.timeout}`);
    }
    removePidFile(home);
    await this.out(`stopped (pid ${sup.pid})`);
  }
}
