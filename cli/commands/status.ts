import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../command.ts';
import { agentTarget } from '../agentClient.ts';
import { statusJson, statusText, type StatusInputs } from '../status/cityStatus.ts';
import type { ListBodyAgentResponse } from '../../schemas/agents.ts';
import type { ConfigResponse } from '../../schemas/config.ts';
import type { ListBodySessionResponse } from '../../schemas/sessions.ts';

/** `gc status [path]`: the city in scope at a glance, from four API reads. */
export default class Status extends GcCommand {
  static override summary = "Show the city's controller, agents, rigs and sessions.";
  static override description = `Reads GET /v0/city/{city}, /config, /agents and /sessions and prints upstream's status skeleton: the city and its path, the controller (the supervisor), whether it is suspended, each configured agent (running, stopped, stopped  (suspended); a pool as "scaled" with its instances), "<r>/<t> agents running", the rigs and "Sessions: <a> active, <s> suspended". With --json, upstream's object (city_name, city_path, controller, suspended, agents, rigs, summary) indented. The city is [path], --city, GC_CITY, or the city directory containing the current directory.`;
  static override examples = [
    { description: 'The city in scope', command: '<%= config.bin %> status' },
    {
      description: 'Running agents of another city, as JSON',
      command: '<%= config.bin %> status ~/cities/alpha --json | jq .summary',
    },
  ];
  static override args = {
    path: Args.string({ description: 'a city directory or name (default: the city in scope)' }),
  };
  static override flags = {
    api: Flags.string({ description: 'supervisor API base URL (default: GC_API, then auto-discovery)' }),
    city: Flags.string({ description: 'a registered name or a city directory (default: GC_CITY, then cwd)' }),
    json: Flags.boolean({ description: "upstream's status object, indented" }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Status);
    const { client, city } = await agentTarget({ api: flags.api, city: args.path ?? flags.city });
    const base = `/v0/city/${encodeURIComponent(city)}`;
    const [c, config, agents, sessions] = await Promise.all([
      client.getJson<StatusInputs['city']>(base),
      client.getJson<ConfigResponse>(`${base}/config`),
      client.getJson<ListBodyAgentResponse>(`${base}/agents`),
      client.getJson<ListBodySessionResponse>(`${base}/sessions`),
    ]);
    const inputs: StatusInputs = {
      city: c.body,
      config: config.body,
      agents: agents.body.items ?? [],
      sessions: sessions.body.items ?? [],
    };
    await this.out(flags.json ? JSON.stringify(statusJson(inputs), null, 2) : statusText(inputs));
  }
}
