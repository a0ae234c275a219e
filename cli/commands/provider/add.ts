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
import { compact } from '../../jsonl.ts';

/** `gc provider add`: POST /v0/city/{city}/providers. */
export default class ProviderAdd extends GcCommand {
  static override summary = 'Add a provider to the city configuration.';
  static override description = `POSTs /v0/city/{city}/providers, which writes [providers.<name>] to city.toml (validated, written atomically, recorded as config.changed). It needs --command or --base. Prints {"status":"created","provider":…} as one JSON line. A name in use (a builtin included) is a conflict: error.`;
  static override examples = [
    {
      description: 'A wrapper script as a provider',
      command: '<%= config.bin %> provider add my-cli --command ./bin/agent --arg --fast --prompt-mode arg',
    },
    {
      description: 'A variant of a builtin',
      command: '<%= config.bin %> provider add claude-env --base claude --env CLAUDE_MODEL=opus',
    },
  ];
  static override args = nameArgOf('provider');
  static override flags = { ...cityFlags, ...providerFieldFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ProviderAdd);
    const body = { name: args.name, ...providerFields(flags) };
    const { client, city } = await cityTarget(flags);
    await this.out(compact(await mutate<unknown>(client, 'POST', cityPath(city, 'providers'), body)));
  }
}
