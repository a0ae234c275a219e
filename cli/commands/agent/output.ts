import * as Flags from '@oclif/core/flags';
import { GcCommand } from '../../command.ts';
import { agentFlags, agentPath, agentTarget, nameArg } from '../../agentClient.ts';
import { ApiError } from '../../api.ts';
import { compact } from '../../jsonl.ts';
import { followResumable, stopOnSignals } from '../../sseFollow.ts';
import type { AgentOutputResponse } from '../../../schemas/agents.ts';

/** `gc agent output`: GET /v0/city/{city}/agent/{name}/output, or its stream with --follow. */
export default class AgentOutput extends GcCommand {
  static override summary = "Print an agent's output as JSON Lines of turns.";
  static override description = `Reads GET /v0/city/{city}/agent/{base}/output (or …/agent/{rig}/{base}/output) and prints each turn ({"role","text","timestamp"?}) as one JSON line, oldest first: the turns of its conversation, or without a session log one "output" turn holding its screen. With --follow, reads the output stream instead: the latest turns, then each new turn as it comes, until the agent is removed or you interrupt it; heartbeats are never printed, and a dropped connection (a supervisor or city restart) is resumed with Last-Event-ID, so no turn is printed twice or skipped. An agent with neither a session log nor a running session is a not_found: error.`;
  static override examples = [
    { description: 'The latest turns of an agent', command: '<%= config.bin %> agent output mayor' },
    {
      description: 'Follow a rig agent, printing only what the assistant says',
      command:
        '<%= config.bin %> agent output my-rig/worker --follow | jq -r \'select(.role == "assistant") | .text\'',
    },
    { description: 'The whole conversation', command: '<%= config.bin %> agent output mayor --tail 0' },
  ];
  static override args = nameArg;
  static override flags = {
    ...agentFlags,
    follow: Flags.boolean({
      char: 'f',
      description: 'keep printing new turns as they come (the output stream)',
    }),
    tail: Flags.integer({
      description: 'compaction segments to read (server default 1; 0 = all)',
      min: 0,
      exclusive: ['follow'],
    }),
    before: Flags.string({ description: 'read the turns before this message id', exclusive: ['follow'] }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AgentOutput);
    const { client, city } = await agentTarget(flags);
    if (!flags.follow) {
      const { body } = await client.getJson<AgentOutputResponse>(agentPath(city, args.name, 'output'), {
        tail: flags.tail,
        before: flags.before,
      });
      for (const turn of body.turns ?? []) await this.out(compact(turn));
      return;
    }
    const stop = new AbortController();
    const undo = stopOnSignals(stop);
    try {
      await followResumable({
        client,
        path: agentPath(city, args.name, 'output/stream'),
        event: 'turn',
        signal: stop.signal,
        emit: async (frame) => {
          const data = JSON.parse(frame.data) as AgentOutputResponse;
          for (const turn of data.turns ?? []) await this.out(compact(turn));
        },
        warn: (m) => this.note(m),
        // The server ends the stream when it cannot read the output any more; a 404 for it, in a city that
        // answers, means the agent is gone. Anything else (a restart, a city not back yet) is resumed.
        over: async () => {
          const missing = (path: string): Promise<boolean> =>
            client.getJson(path, {}, stop.signal).then(
              () => false,
              (err: unknown) => err instanceof ApiError && err.status === 404,
            );
          return (
            (await missing(agentPath(city, args.name, 'output'))) &&
            !(await missing(`/v0/city/${encodeURIComponent(city)}`))
          );
        },
      });
    } finally {
      undo();
    }
  }
}
