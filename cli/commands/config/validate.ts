import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget } from '../../configClient.ts';
import { CliError } from '../../errors.ts';
import { compact } from '../../jsonl.ts';
import type { ConfigValidateOutputBody } from '../../../schemas/config.ts';

/** `gc config validate`: GET /v0/city/{city}/config/validate. */
export default class ConfigValidate extends GcCommand {
  static override summary = "Check the city's configuration.";
  static override description = `Reads GET /v0/city/{city}/config/validate: city.toml and its packs as they are on disk now. Prints one line per problem, "error: <file>: <field>: <message>" or "warning: …"; with --json, the answer as one JSON line. Exits 1 when there is an error (warnings alone exit 0), so it fits a pre-commit hook.`;
  static override examples = [
    { description: 'Check the city in scope', command: '<%= config.bin %> config validate' },
    {
      description: 'Only the errors, as JSON',
      command: "<%= config.bin %> config validate --json --city my-city | jq -r '.errors[]'",
    },
  ];
  static override flags = {
    ...cityFlags,
    json: Flags.boolean({ description: 'the answer as one JSON line' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigValidate);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<ConfigValidateOutputBody>(
      `${cityPath(city, 'config', 'validate')}?extras=true`,
    );
    if (flags.json) await this.out(compact(body));
    else {
      for (const e of body.errors ?? []) await this.out(`error: ${e}`);
      for (const w of body.warnings ?? []) await this.out(`warning: ${w}`);
    }
    const n = (body.errors ?? []).length;
    if (!body.valid) throw new CliError(`${n} error${n === 1 ? '' : 's'} in the configuration`);
  }
}
