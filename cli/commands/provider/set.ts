import { GcCommand } from '../../command.ts';
import {
  cityFlags,
  cityPath,
  cityTarget,
  mutate,
  nameArgOf,
  providerFieldFlags,
  providerFields,
} from '../../configClient.ts';
import { CliError } from '../../errors.ts';
import { compact } from '../../jsonl.ts';

/** `gc provider set`: PATCH /v0/city/{city}/provider/{name}. */
export default class ProviderSet extends GcCommand {
  static override summary = 'Change a provider.';
  static override description = `PATCHes /v0/city/{city}/provider/{name}, which sets the given keys of [providers.<name>] in city.toml (a builtin gets a city override); only the fields given change. Prints {"status":"ok"} as one JSON line.`;
  static override examples = [
    {
      description: 'Give a builtin more time to start',
      command: '<%= config.bin %> provider set codex --ready-delay-ms 8000',
    },
    {
      description: 'Point a city provider at another binary',
      command: '<%= config.bin %> provider set my-cli --command /opt/agent/bin/agent --city my-city',
    },
  ];
  static override args = nameArgOf('provider');
  static override flags = { ...cityFlags, ...providerFieldFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ProviderSet);
    const body = providerFields(flags);
    if (Object.keys(body).length === 0) throw new CliError('nothing to change: pass at least one field flag');
    const { client, city } = await cityTarget(flags);
    await this.out(
      compact(
        (await mutate<unknown>(client, 'PATCH', cityPath(city, 'provider', args.name), body)) ?? {
          status: 'ok',
        },
      ),
    );
  }
}
