import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, table } from '../../configClient.ts';
import { compact } from '../../jsonl.ts';
import type { ListBodyProviderResponse } from '../../../schemas/providers.ts';

/** `gc provider list`: GET /v0/city/{city}/providers. */
export default class ProviderList extends GcCommand {
  static override summary = 'List the providers (agent CLIs) of the city in scope.';
  static override description = `Reads GET /v0/city/{city}/providers: the builtin presets (claude, codex, gemini, …, mock) and the city's own. Prints a table (NAME, BUILTIN, CITY, COMMAND; CITY means city.toml, a pack or a patch defines or overrides it), or with --json one ProviderResponse per line.`;
  static override examples = [
    { description: 'A table of the providers', command: '<%= config.bin %> provider list' },
    {
      description: 'The city-level ones, as JSON Lines',
      command: "<%= config.bin %> provider list --json | jq -c 'select(.city_level)'",
    },
  ];
  static override flags = {
    ...cityFlags,
    json: Flags.boolean({ description: 'one JSON object per provider per line instead of a table' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ProviderList);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<ListBodyProviderResponse>(cityPath(city, 'providers'));
    const items = body.items ?? [];
    if (flags.json) {
      for (const p of items) await this.out(compact(p));
      return;
    }
    const rows = items.map((p) => [
      p.name,
      p.builtin ? 'yes' : 'no',
      p.city_level ? 'yes' : 'no',
      [p.command ?? '-', ...(p.args ?? [])].join(' '),
    ]);
    for (const line of table([['NAME', 'BUILTIN', 'CITY', 'COMMAND'], ...rows])) await this.out(line);
  }
}
