import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget } from '../../cityClient.ts';
import { CliError } from '../../errors.ts';

/** `gc beads health`: the city's bead store answers (GET /beads) and its journal is healthy (GET /health). */
export default class BeadsHealth extends GcCommand {
  static override summary = 'Check the bead store of the city in scope.';
  static override description = `This supervisor's bead store is built in (a projection of the city's journal; no Dolt server to recover), so its health is whether it answers: reads GET /v0/city/{city}/beads?limit=1 (its X-GC-Index, the journal position it reflects) and GET /health?extras=true (the journal backend). Prints "Bead store for <city>: healthy (built-in, <backend> journal, index <n>)"; --quiet prints nothing. A store that does not answer is one line on stderr, exit 1.`;
  static override examples = [
    { description: 'Check the store', command: '<%= config.bin %> beads health' },
    { description: 'In a script: only the exit status', command: '<%= config.bin %> beads health --quiet' },
  ];
  static override flags = {
    ...cityFlags,
    quiet: Flags.boolean({ char: 'q', description: 'print nothing; the exit status says it' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(BeadsHealth);
    const { client, city } = await cityTarget(flags);
    const [beads, health] = await Promise.all([
      client.getJson<{ total?: number }>(cityPath(city, 'beads'), { limit: 1 }),
      client.getJson<{ status: string; journal?: string }>('/health', { extras: 'true' }),
    ]);
    if (health.body.status !== 'ok')
      throw new CliError(`bead store for ${city}: journal status ${health.body.status}`);
    const index = beads.headers.get('x-gc-index') ?? '?';
    if (flags.quiet) return;
    await this.out(
      `Bead store for ${city}: healthy (built-in, ${health.body.journal ?? 'file'} journal, index ${index})`,
    );
  }
}
