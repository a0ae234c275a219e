import * as Flags from '@oclif/core/flags';
import { ApiClient } from '../api.ts';
import type { CityInfo } from '../../schemas/cities.ts';
import { listCities } from '../cities.ts';
import { GcCommand } from '../command.ts';
import { discoverApi } from '../discover.ts';
import { compact } from '../jsonl.ts';

/** Renders cities as an aligned text table. Pure. */
export function citiesTable(cities: CityInfo[]): string[] {
  const rows = [
    ['NAME', 'RUNNING', 'STATUS', 'PATH'],
    ...cities.map((c) => [
      c.name,
      c.running ? 'yes' : 'no',
      c.error ? `error: ${c.error}` : (c.status ?? ''),
      c.path,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '),
  );
}

/** `gc cities`: the registered cities (GET /v0/cities). */
export default class Cities extends GcCommand {
  static override summary = 'List the cities registered with the supervisor.';
  static override description =
    'Reads GET /v0/cities. Prints a table, or with --json one CityInfo object per line (name, path, running, status, phases_completed, error).';
  static override examples = [
    { description: 'A table of cities', command: '<%= config.bin %> cities' },
    {
      description: 'JSON Lines, e.g. for jq',
      command: "<%= config.bin %> cities --json | jq -r 'select(.running) | .name'",
    },
  ];
  static override flags = {
    api: Flags.string({ description: 'supervisor API base URL (default: GC_API, then auto-discovery)' }),
    json: Flags.boolean({ description: 'one JSON object per city per line instead of a table' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Cities);
    const cities = await listCities(new ApiClient(await discoverApi(flags.api)));
    const lines = flags.json ? cities.map(compact) : citiesTable(cities);
    for (const line of lines) await this.out(line);
  }
}
