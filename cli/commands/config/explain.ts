import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, table } from '../../configClient.ts';
import { compact } from '../../jsonl.ts';
import type { ConfigExplainResponse } from '../../../schemas/config.ts';

/** `gc config explain`: GET /v0/city/{city}/config/explain. */
export default class ConfigExplain extends GcCommand {
  static override summary = 'Show where each configuration value comes from.';
  static override description = `Reads GET /v0/city/{city}/config/explain and prints a table of every value of the effective configuration: PATH (workspace.<key>, agents.<name>.<key>, providers.<name>.<key>, rigs.<name>.<key>, services.<name>.<key>), ORIGIN (default, pack, city or patch) and FILE. --prefix keeps the paths that start with it; --json prints the whole answer (agent and provider origins, patch counts, sources) as one JSON line.`;
  static override examples = [
    {
      description: 'Where the values of one agent come from',
      command: '<%= config.bin %> config explain --prefix agents.worker.',
    },
    {
      description: 'The patched values, as JSON',
      command: '<%= config.bin %> config explain --json | jq \'.sources[] | select(.origin == "patch")\'',
    },
  ];
  static override flags = {
    ...cityFlags,
    prefix: Flags.string({ description: 'only the values whose path starts with this' }),
    json: Flags.boolean({ description: 'the whole answer as one JSON line' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigExplain);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<ConfigExplainResponse>(
      `${cityPath(city, 'config', 'explain')}?extras=true`,
    );
    if (flags.json) {
      await this.out(compact(body));
      return;
    }
    const sources = (body.sources ?? []).filter(
      (s) => flags.prefix === undefined || s.path.startsWith(flags.prefix),
    );
    const rows = sources.map((s) => [
      s.path,
      s.origin === 'pack' ? `pack:${s.pack ?? ''}` : s.origin,
      s.file ?? '-',
    ]);
    for (const line of table([['PATH', 'ORIGIN', 'FILE'], ...rows])) await this.out(line);
  }
}
