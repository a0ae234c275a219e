import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, textTable } from '../../cityClient.ts';
import { compact } from '../../jsonl.ts';

interface Summary {
  name: string;
  description: string;
  var_defs: { name: string; required?: boolean }[] | null;
}

/** `gc formula list`: GET /v0/city/{city}/formulas. */
export default class FormulaList extends GcCommand {
  static override summary = 'List the workflow formulas of the city in scope.';
  static override description = `Reads GET /v0/city/{city}/formulas: every workflow formula in the city's formulas/ directory. Prints a table (NAME, VARS with * marking a required one, DESCRIPTION), or with --json one FormulaSummaryResponse object per line, as the API sent it. A file that does not parse is left out (the server logs why; "gc formula show <name>" names the problem).`;
  static override examples = [
    { description: 'A table of the formulas', command: '<%= config.bin %> formula list' },
    {
      description: 'The names only, from another city',
      command: '<%= config.bin %> formula list --city my-city --json | jq -r .name',
    },
  ];
  static override flags = {
    ...cityFlags,
    json: Flags.boolean({ description: 'one JSON object per formula per line instead of a table' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(FormulaList);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<{ items: Summary[] | null }>(cityPath(city, 'formulas'));
    const items = body.items ?? [];
    if (flags.json) {
      for (const f of items) await this.out(compact(f));
      return;
    }
    const vars = (f: Summary) => (f.var_defs ?? []).map((v) => `${v.name}${v.required ? '*' : ''}`).join(',');
    const rows = [['NAME', 'VARS', 'DESCRIPTION'], ...items.map((f) => [f.name, vars(f), f.description])];
    for (const line of textTable(rows)) await this.out(line);
  }
}
