import * as Args from '@oclif/core/args';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget } from '../../cityClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc formula show`: GET /v0/city/{city}/formula/{name}. */
export default class FormulaShow extends GcCommand {
  static override summary = 'Show one formula: its steps, variables and the graph a cook would create.';
  static override description = `Reads GET /v0/city/{city}/formula/{name} and prints the FormulaDetailResponse (steps, deps, var_defs, preview) as one compact JSON line. Placeholders stay unresolved; "gc formula preview" fills them in. An unknown formula is a not_found error; a file that does not parse is an invalid_formula error naming its file, line and field.`;
  static override examples = [
    { description: 'A formula as one JSON line', command: '<%= config.bin %> formula show mol-review' },
    {
      description: 'Its step titles',
      command: "<%= config.bin %> formula show mol-review | jq -r '.steps[].title'",
    },
  ];
  static override args = {
    name: Args.string({ description: 'formula name (formulas/<name>.toml)', required: true }),
  };
  static override flags = cityFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(FormulaShow);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<unknown>(cityPath(city, 'formula', args.name));
    await this.out(compact(body));
  }
}
