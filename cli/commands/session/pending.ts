import * as Args from '@oclif/core/args';
import type { Static } from 'typebox';
import { GcCommand } from '../../command.ts';
import { compact } from '../../jsonl.ts';
import { sessionFlags, sessionPath, sessionTarget } from '../../sessionClient.ts';
import type { ListBodyCityPendingEntry, SessionPendingResponse } from '../../../schemas/sessionTranscript.ts';

/** `gc session pending`: GET /v0/city/{city}/session/{id}/pending, or the city's list GET /v0/city/{city}/pending. */
export default class SessionPending extends GcCommand {
  static override summary = 'Print the prompts sessions wait on (approvals), as JSON Lines.';
  static override description = `With a session, reads GET /v0/city/{city}/session/{id}/pending and prints the prompt it waits on ({"request_id","kind","prompt","options","metadata"}) as one JSON line, or nothing when it waits on none. Without one, reads the city-wide GET /v0/city/{city}/pending and prints one line per waiting session ({"session_id","request_id","kind"}). Answer a prompt with "gc session respond".`;
  static override examples = [
    {
      description: 'Every session of the city that waits on a prompt',
      command: '<%= config.bin %> session pending',
    },
    {
      description: "One session's prompt, then approve it",
      command:
        '<%= config.bin %> session pending mayor\n<%= config.bin %> session respond mayor approve --request-id "$(gc session pending mayor | jq -r .request_id)"',
    },
  ];
  static override args = {
    id: Args.string({ description: 'session id, alias or runtime session name (default: every session)' }),
  };
  static override flags = sessionFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SessionPending);
    const { client, city } = await sessionTarget(flags);
    if (args.id === undefined) {
      const { body } = await client.getJson<Static<typeof ListBodyCityPendingEntry>>(
        `/v0/city/${encodeURIComponent(city)}/pending`,
      );
      for (const entry of body.items ?? []) await this.out(compact(entry));
      return;
    }
    const { body } = await client.getJson<Static<typeof SessionPendingResponse>>(
      sessionPath(city, args.id, 'pending'),
    );
    if (!body.supported) this.note(`session ${args.id}'s runtime cannot report prompts`);
    if (body.pending) await this.out(compact(body.pending));
  }
}
