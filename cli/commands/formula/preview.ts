import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, parseVars, varFlag } from '../../cityClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc formula preview`: POST /v0/city/{city}/formulas/{name}/preview. */
export default class FormulaPreview extends GcCommand {
  static override summary =
    'Compile a formula with variables and show what a cook would create; nothing is written.';
  static override description = `POSTs /v0/city/{city}/formulas/{name}/preview with --target and the --var values, and prints the FormulaDetailResponse as one compact JSON line: the steps with their placeholders filled in and the dependency graph. A missing required variable is a missing_variable error, a value outside its enum or pattern an invalid_variable error; a dependency cycle is an invalid_formula error naming it.`;
  static override examples = [
    {
      description: 'Preview a review of PR-7 for the worker pool',
      command: '<%= config.bin %> formula preview mol-review --target worker --var target=PR-7',
    },
    {
      description: 'The titles of the nodes it would create',
      command:
        "<%= config.bin %> formula preview mol-review --var target=PR-7 --var mode=full | jq -r '.preview.nodes[].title'",
    },
  ];
  static override args = {
    name: Args.string({ description: 'formula name (formulas/<name>.toml)', required: true }),
  };
  static override flags = {
    ...cityFlags,
    target: Flags.string({
      description: 'the agent or pool the workflow would be routed to',
      default: 'preview',
    }),
    var: varFlag,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(FormulaPreview);
    const vars = parseVars(flags.var);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.postJson<unknown>(cityPath(city, 'formulas', args.name, 'preview'), {
      target: flags.target,
      ...(vars ? { vars } : {}),
    });
    await this.out(compact(body));
  }
}
