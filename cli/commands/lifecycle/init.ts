import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { CliError } from '../../errors.ts';
import { initCity, UPSTREAM_PROVIDERS } from '../../cityInit.ts';

const FLAGS_HINT = `pass --provider <name> (one of: ${UPSTREAM_PROVIDERS.join(', ')}) or --file <city.toml>`;

/** `gc init [path]`: writes a new city directory (non-interactive modes only). */
export default class Init extends GcCommand {
  static override summary = 'Initialize a new city directory.';
  static override description = `Writes city.toml, pack.toml, the .gc/ runtime tree (cache, runtime, system), the convention directories (agents, commands, doctor, formulas, orders, template-fragments, overlays, assets), the mayor's prompt (agents/mayor/prompt.template.md) and .gitignore entries, printing upstream's "[k/6]" progress lines. --provider writes a city whose mayor agent runs that provider, --file uses the given TOML file as city.toml. A directory that already holds city.toml or .gc/ is refused ("already initialized"); nothing is left behind by a failed init. Init talks to no supervisor: "gc start" registers and starts the city. There is no interactive wizard: without --provider or --file it fails and says which flag to pass.`;
  static override examples = [
    {
      description: 'A city whose mayor runs Claude Code',
      command: '<%= config.bin %> init ~/cities/alpha --provider claude',
    },
    {
      description: 'A city from a prepared city.toml',
      command: '<%= config.bin %> init ./lab --file ./lab.toml --name lab',
    },
  ];
  static override args = {
    path: Args.string({ description: 'the new city directory (default: the current directory)' }),
  };
  static override flags = {
    provider: Flags.string({ description: 'built-in provider of the default mayor agent' }),
    file: Flags.string({ description: 'path to a TOML file to use as city.toml' }),
    name: Flags.string({ description: 'workspace name (default: the directory name)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Init);
    if (flags.provider !== undefined && flags.file !== undefined) {
      throw new CliError('--provider and --file are mutually exclusive');
    }
    if (flags.provider === undefined && flags.file === undefined) {
      throw new CliError(
        process.stdin.isTTY === true
          ? `the interactive wizard is not supported; ${FLAGS_HINT}`
          : `stdin is not a terminal and no --provider or --file was given; ${FLAGS_HINT}`,
      );
    }
    const lines = await initCity({
      dir: args.path ?? process.cwd(),
      provider: flags.provider,
      file: flags.file,
      name: flags.name,
      progress: (line) => this.out(line),
    });
    for (const line of lines) await this.out(line);
  }
}
