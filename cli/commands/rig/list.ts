import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { cityFlags, cityPath, cityTarget, table } from '../../configClient.ts';
import { compact } from '../../jsonl.ts';
import type { ListBodyRigResponse } from '../../../schemas/rigs.ts';

/** `gc rig list`: GET /v0/city/{city}/rigs. */
export default class RigList extends GcCommand {
  static override summary = 'List the rigs of the city in scope.';
  static override description = `Reads GET /v0/city/{city}/rigs: the repositories the city works on. Prints a table (NAME, PATH, SUSPENDED, AGENTS, RUNNING, and BRANCH with --git), or with --json one RigResponse per line. A rig whose git status could not be read is named on stderr.`;
  static override examples = [
    { description: 'A table of the rigs', command: '<%= config.bin %> rig list' },
    {
      description: 'Rigs with uncommitted changes',
      command: "<%= config.bin %> rig list --git --json | jq -r 'select(.git.clean == false) | .name'",
    },
  ];
  static override flags = {
    ...cityFlags,
    json: Flags.boolean({ description: 'one JSON object per rig per line instead of a table' }),
    git: Flags.boolean({ description: 'include each rig’s git status' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(RigList);
    const { client, city } = await cityTarget(flags);
    const { body } = await client.getJson<ListBodyRigResponse>(cityPath(city, 'rigs'), {
      git: flags.git ? 'true' : undefined,
    });
    const rigs = body.items ?? [];
    for (const e of body.partial_errors ?? []) this.note(e);
    if (flags.json) {
      for (const r of rigs) await this.out(compact(r));
      return;
    }
    const head = ['NAME', 'PATH', 'SUSPENDED', 'AGENTS', 'RUNNING', ...(flags.git ? ['BRANCH'] : [])];
    const rows = rigs.map((r) => [
      r.name,
      r.path,
      r.suspended ? 'yes' : 'no',
      String(r.agent_count),
      String(r.running_count),
      ...(flags.git ? [r.git ? `${r.git.branch}${r.git.clean ? '' : '*'}` : '-'] : []),
    ]);
    for (const line of table([head, ...rows])) await this.out(line);
  }
}
