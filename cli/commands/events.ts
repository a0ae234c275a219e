import * as Flags from '@oclif/core/flags';
import { ApiClient } from '../api.ts';
import { resolveScope } from '../cityScope.ts';
import { GcCommand } from '../command.ts';
import { discoverApi } from '../discover.ts';
import { parseDuration } from '../duration.ts';
import { headCursor } from '../events/head.ts';
import { listEvents } from '../events/list.ts';
import { checkScope, planEvents } from '../events/plan.ts';
import { follow, streamTarget, watch } from '../events/stream.ts';

/** `gc events`: the event API as JSON Lines (spec 6.4). */
export default class Events extends GcCommand {
  static override summary = 'Print events from the supervisor API as JSON Lines.';

  static override description = `With a city in scope (--city, GC_CITY, or the current directory inside a registered city) this reads GET /v0/city/{city}/events and its stream; otherwise the supervisor's merged log at GET /v0/events. Output is one compact JSON object per line (TypedEventStreamEnvelope or TypedTaggedEventStreamEnvelope in list mode, EventStreamEnvelope or TaggedEventStreamEnvelope in --watch and --follow), oldest first; nothing is printed when nothing matches. Filters only select lines, they never change their shape. --seq prints the head cursor as plain text instead. Failures are one line on stderr and exit status 1.`;

  static override examples = [
    {
      description: 'Every event of the city in scope, or of all cities',
      command: '<%= config.bin %> events',
    },
    {
      description: 'Bead creations of the last hour in one city',
      command: '<%= config.bin %> events --city my-city --type bead.created --since 1h',
    },
    {
      description: 'Nested payload fields; the same path twice means either value',
      command:
        '<%= config.bin %> events --payload-match bead.issue_type=bug --payload-match bead.issue_type=task',
    },
    {
      description: 'Wait up to 5 minutes for one request to finish (empty output on time-out)',
      command:
        '<%= config.bin %> events --watch --type request.result.city.create --payload-match request_id=req-0123 --timeout 5m',
    },
    {
      description: 'Stream forever, reconnecting as needed (with no city yet, wait for the first one)',
      command: '<%= config.bin %> events --follow',
    },
    {
      description: 'Resume a supervisor stream after a saved cursor',
      command: '<%= config.bin %> events --follow --after-cursor "$(gc events --seq)"',
    },
    {
      description: 'Replay a city log after seq 41, then keep following',
      command: '<%= config.bin %> events --city my-city --follow --after 41',
    },
  ];

  static override flags = {
    api: Flags.string({ description: 'supervisor API base URL (default: GC_API, then auto-discovery)' }),
    city: Flags.string({
      description: 'city in scope: a registered name or a city directory (default: GC_CITY, then cwd)',
    }),
    type: Flags.string({ description: 'only events of this type, e.g. bead.created' }),
    since: Flags.string({ description: 'only events at most this old, e.g. 30m, 1h30m' }),
    'payload-match': Flags.string({
      description:
        'only events whose payload has <path>=<value> (dotted paths; repeatable: same path = OR, different paths = AND)',
      multiple: true,
    }),
    watch: Flags.boolean({ description: 'print the first matching event, then exit (nothing on time-out)' }),
    follow: Flags.boolean({ description: 'stream matching events forever, reconnecting from the last one' }),
    seq: Flags.boolean({
      description: "print the head cursor (a city's seq, or the supervisor's composite cursor)",
    }),
    timeout: Flags.string({ description: 'how long --watch waits for a match', default: '30s' }),
    after: Flags.integer({
      description: 'city scope: start after this seq (replays recorded events)',
      min: 0,
    }),
    'after-cursor': Flags.string({
      description: 'supervisor scope: start after this composite cursor (replays recorded events)',
    }),
    'idle-timeout': Flags.string({
      description: 'reconnect a --follow connection silent (no heartbeat) for this long',
      default: '60s',
      hidden: true,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Events);
    const plan = planEvents(flags, Date.now());
    const client = new ApiClient(await discoverApi(flags.api));
    const scope = await resolveScope(client, { flag: flags.city, env: process.env, cwd: process.cwd() });
    checkScope(plan, scope);
    const emit = (line: string): Promise<void> => this.out(line);

    if (plan.mode === 'seq') return emit(await headCursor(client, scope));
    if (plan.mode === 'list') {
      return listEvents(
        client,
        scope,
        { filter: plan.filter, after: plan.after, afterCursor: plan.afterCursor },
        emit,
      );
    }

    const signal = plan.mode === 'watch' ? AbortSignal.timeout(plan.timeoutMs) : new AbortController().signal;
    const explicit = plan.after !== undefined ? String(plan.after) : plan.afterCursor;
    let start: string;
    try {
      // Starting from an explicit head (not "whatever the server's head is at connect") gives --follow a
      // position to resume from even if its first connection ends before any event.
      start = explicit ?? (await headCursor(client, scope, signal));
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    const run = {
      client,
      target: streamTarget(scope, start),
      filter: plan.filter,
      signal,
      emit,
      warn: (m: string) => this.note(m),
      idleMs: parseDuration(flags['idle-timeout']),
    };
    if (plan.mode === 'watch') await watch(run);
    else await follow(run);
  }
}
