import * as Flags from '@oclif/core/flags';
import { ApiClient } from '../api.ts';
import type { ActorEntry, ActorListBody } from '../../schemas/actors.ts';
import { GcCommand } from '../command.ts';
import { discoverApi } from '../discover.ts';
import { compact } from '../jsonl.ts';
import { openSse } from '../sseStream.ts';

/** `gc inspect`: the live actors as JSON Lines (GET /v0/actors, or /v0/actors/stream with --follow). */
export default class Inspect extends GcCommand {
  static override summary =
    'Print the live actors (supervisor, cities, requests, sessions, agents, schedulers) as JSON Lines.';
  static override description = `One ActorEntry per line: {id, kind, city?, state, status, context}, where state is the machine's state value and context a summary. With --follow, the current list first, then one line per change as it happens (an actor that ended comes once more with status "done"), until interrupted. Heartbeats are never printed.`;
  static override examples = [
    { description: 'Every live actor now', command: '<%= config.bin %> inspect' },
    {
      description: 'Follow the sessions of one city',
      command: `<%= config.bin %> inspect --follow | jq -c 'select(.kind == "session" and .city == "dock")'`,
    },
  ];
  static override flags = {
    api: Flags.string({ description: 'supervisor API base URL (default: GC_API, then auto-discovery)' }),
    follow: Flags.boolean({ char: 'f', description: 'keep printing changes as they happen' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Inspect);
    const client = new ApiClient(await discoverApi(flags.api));
    if (!flags.follow) {
      const { body } = await client.getJson<ActorListBody>('/v0/actors');
      for (const entry of body.items) await this.out(compact(entry));
      return;
    }
    const stop = new AbortController();
    const onSignal = (): void => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const frames = await openSse(client, { path: '/v0/actors/stream', signal: stop.signal });
      for await (const frame of frames) {
        if (frame.event === 'actors') {
          for (const entry of (JSON.parse(frame.data) as ActorListBody).items) await this.out(compact(entry));
        } else if (frame.event === 'actor') {
          await this.out(compact(JSON.parse(frame.data) as ActorEntry));
        }
      }
    } catch (err) {
      if (!stop.signal.aborted) throw err;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}
