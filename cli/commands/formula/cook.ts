import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, parseVars, varFlag } from '../../cityClient.ts';
import { compact } from '../../jsonl.ts';

/** `gc formula cook`: POST /v0/city/{city}/formulas/{name}/cook. */
export default class FormulaCook extends GcCommand {
  static override summary = 'Cook a formula into a molecule: its whole bead graph, written as one batch.';
  static override description = `POSTs /v0/city/{city}/formulas/{name}/cook with the --var values (and --target, --title) and prints the answer, {"workflow_id","root_bead_id","formula","bead_ids"}, as one JSON line. The molecule exists whole or not at all: a missing variable, a cycle or an unknown formula is an error and nothing is written. To route the workflow to an agent in the same step use "gc sling <target> --formula <name>".`;
  static override examples = [
    {
      description: 'Cook a review of PR-7 and print the workflow id',
      command: '<%= config.bin %> formula cook mol-review --var target=PR-7 | jq -r .workflow_id',
    },
    {
      description: 'Cook it routed to the worker pool, with a title',
      command:
        '<%= config.bin %> formula cook mol-review --var target=PR-8 --target worker --title "Review PR-8"',
    },
  ];
  static override args = {
    name: Args.string({ description: 'formula name (formulas/<name>.toml)', required: true }),
  };
  static override flags = {
    ...cityFlags,
    var: varFlag,
    target: Flags.string({ description: 'the agent or pool the workflow is routed to' }),
    title: Flags.string({ description: 'the root bead’s title (else the formula’s)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(FormulaCook);
    const vars = parseVars(flags.var);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.postJson<unknown>(cityPath(city, 'formulas', args.name, 'cook'), {
      ...(vars ? { vars } : {}),
      ...(flags.target ? { target: flags.target } : {}),
      ...(flags.title ? { title: flags.title } : {}),
    });
    await this.out(compact(body));
  }
}
