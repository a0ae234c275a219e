import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../command.ts';
import { cityFlags, cityPath, cityTarget, parseVars, varFlag } from '../cityClient.ts';
import { CliError } from '../errors.ts';
import { compact } from '../jsonl.ts';
import type { SlingInputBody } from '../../schemas/sling.ts';

/** `gc sling`: POST /v0/city/{city}/sling. */
export default class Sling extends GcCommand {
  static override summary = 'Dispatch a bead, or a formula workflow, to an agent or pool.';
  static override description = `POSTs /v0/city/{city}/sling and prints the SlingResponse as one JSON line. With a <bead>, routes it to <target> (gc.routed_to) in a sling-<bead> convoy ("mode":"direct"); with --formula, cooks the formula with the --var values and routes the new workflow to <target> ("mode":"standalone"), or with --attach <bead> launches it onto that bead ("mode":"attached"). Each is written whole or not at all. An unknown target, bead or formula is a not_found error; a bead that already runs a workflow is a conflict unless --force.`;
  static override examples = [
    { description: 'Route a bead to the worker pool', command: '<%= config.bin %> sling worker gc-42' },
    {
      description: 'Launch a review workflow for the worker pool and print its id',
      command: '<%= config.bin %> sling worker --formula mol-review --var target=PR-7 | jq -r .workflow_id',
    },
    {
      description: 'Launch it onto an existing bead, replacing a live workflow',
      command: '<%= config.bin %> sling worker --formula mol-review --attach gc-42 --var target=PR-7 --force',
    },
  ];
  static override args = {
    target: Args.string({
      description: 'the agent or pool (qualified name, or a pool instance)',
      required: true,
    }),
    bead: Args.string({ description: 'the bead to route (instead of --formula)' }),
  };
  static override flags = {
    ...cityFlags,
    formula: Flags.string({ description: 'launch this formula instead of routing a bead' }),
    attach: Flags.string({ description: 'launch the formula onto this bead' }),
    var: varFlag,
    title: Flags.string({ description: 'the workflow’s title' }),
    rig: Flags.string({ description: 'rig context: a bare target is tried as <rig>/<target> first' }),
    force: Flags.boolean({
      description: 'route a bead the store lacks, or launch onto a bead with a live workflow',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Sling);
    if (args.bead === undefined && flags.formula === undefined)
      throw new CliError('nothing to sling: pass a <bead> or --formula <name>');
    const vars = parseVars(flags.var);
    const body: SlingInputBody = { target: args.target };
    if (args.bead !== undefined) body.bead = args.bead;
    if (flags.formula !== undefined) body.formula = flags.formula;
    if (flags.attach !== undefined) body.attached_bead_id = flags.attach;
    if (vars) body.vars = vars;
    if (flags.title !== undefined) body.title = flags.title;
    if (flags.rig !== undefined) body.rig = flags.rig;
    if (flags.force) body.force = true;
    const { client, city } = await cityTarget(flags);
    const { body: answer } = await client.postJson<unknown>(cityPath(city, 'sling'), body);
    await this.out(compact(answer));
  }
}
