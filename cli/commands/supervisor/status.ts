import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { gcHome } from '../../home.ts';
import { compact } from '../../jsonl.ts';
import { findSupervisor, healthy } from '../../supervisorProcess.ts';

/** `gc supervisor status`: running or not, with URL and pid. */
export default class SupervisorStatus extends GcCommand {
  static override summary = 'Show whether the supervisor is running, its URL and pid.';
  static override description = `Looks up the supervisor of $GC_HOME (supervisor.pid, supervisor.json) and probes its /health. Prints "running", the URL and the pid, and exits 0; prints "not running" (or "not answering" for a live process whose API does not answer) and exits 1. --json prints one object {running, healthy, pid, url} instead.`;
  static override examples = [
    { description: 'Human-readable', command: '<%= config.bin %> supervisor status' },
    { description: 'For scripts', command: '<%= config.bin %> supervisor status --json' },
  ];
  static override flags = {
    home: Flags.string({ description: 'supervisor home [env: GC_HOME] (default: ~/.gc)' }),
    json: Flags.boolean({ description: 'one JSON object instead of text' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SupervisorStatus);
    const sup = findSupervisor(gcHome(process.env, flags.home));
    const ok = sup?.url !== undefined && (await healthy(sup.url));
    if (flags.json) {
      await this.out(
        compact({ running: sup !== undefined, healthy: ok, pid: sup?.pid ?? null, url: sup?.url ?? null }),
      );
    } else if (!sup) {
      await this.out('not running');
    } else {
      await this.out(ok ? 'running' : 'not answering');
      if (sup.url !== undefined) await this.out(`url: ${sup.url}`);
      await this.out(`pid: ${sup.pid}`);
    }
    if (!ok) process.exitCode = 1;
  }
}
