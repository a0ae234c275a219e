import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget } from '../../cityClient.ts';
import { CliError } from '../../errors.ts';
import type { OrderRunResponse } from '../../../schemas/orders.ts';

/** The order's key: a rig's order is `<name>:rig:<rig>` (upstream's `--rig` disambiguation). Pure. */
export const scopedOrderName = (name: string, rig: string | undefined): string =>
  rig && !name.includes(':rig:') ? `${name}:rig:${rig}` : name;

/** `gc order run`: POST /v0/city/{city}/order/{name}/run (ours). */
export default class OrderRun extends GcCommand {
  static override summary = 'Run an order now, bypassing its trigger.';
  static override description = `POSTs /v0/city/{city}/order/{name}/run, which fires the order through the scheduler's own path whatever its trigger says. A formula order cooks a wisp labelled order-run:<scoped-name>, routed to the order's pool: prints 'Order "<name>" executed: wisp <id> → gc.routed_to=<pool>' (without the arrow part when it has no pool). An exec order runs its command: prints the command's output, then 'Order "<name>" executed (exec)'; a command that exits non-zero is an error (exit 1) naming its status. --rig picks a rig's order of that name.`;
  static override examples = [
    { description: 'Run the nightly digest now', command: '<%= config.bin %> order run nightly-digest' },
    { description: 'Run a rig’s order', command: '<%= config.bin %> order run cleanup --rig frontend' },
  ];
  static override args = {
    name: Args.string({ description: 'order name (orders/<name>.toml) or scoped name', required: true }),
  };
  static override flags = {
    ...cityFlags,
    rig: Flags.string({ description: 'the rig whose order of that name to run' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(OrderRun);
    const { client, city } = await cityTarget(flags);
    const name = scopedOrderName(args.name, flags.rig);
    const { body } = await client.postJson<OrderRunResponse>(cityPath(city, 'order', name, 'run'));
    if (body.type !== 'exec') {
      const route = body.pool ? ` → gc.routed_to=${body.pool}` : '';
      await this.out(`Order "${args.name}" executed: wisp ${body.wisp_root_id ?? '?'}${route}`);
      return;
    }
    if (body.stdout) process.stdout.write(body.stdout);
    if (body.stderr) process.stderr.write(body.stderr);
    if (body.exit_code === undefined) throw new CliError(`order "${args.name}": its run was not recorded`);
    if (body.exit_code !== 0) throw new CliError(`order "${args.name}": exit status ${body.exit_code}`);
    await this.out(`Order "${args.name}" executed (exec)`);
  }
}
