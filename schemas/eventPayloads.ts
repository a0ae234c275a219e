import { Type, type TObject, type TProperties, type Static } from 'typebox';
import { BeadSchema } from './beads.ts';
import { MessageSchema } from './mail.ts';

/**
 * The payload schemas of the registered event types: one named, closed object per payload shape, each the
 * source of its TypeScript type, its validator and its OpenAPI component (`$id` = component name).
 * Field names and requiredness follow the upstream v0 contract; descriptions are ours.
 */

const payload = <P extends TProperties>(id: string, description: string, props: P) =>
  Type.Object(props, { $id: id, title: id, description, additionalProperties: false }) as TObject<P> & {
    $id: string;
  };

const str = (description: string) => Type.String({ description });
const int = (description: string) => Type.Integer({ format: 'int64', description });
const num = (description: string) => Type.Number({ format: 'double', description });
/** Timestamps default to Go's zero time, so normalising a payload that lacks one yields a valid value. */
const ZERO_TIME = '0001-01-01T00:00:00Z';
const time = (description: string) => Type.String({ format: 'date-time', default: ZERO_TIME, description });

/**
 * The records some payloads carry are the resources themselves on the wire: a bead event's bead is the
 * Bead, a mail event's message the Message, a session create's session the SessionResponse (closed, as
 * upstream's typed decode gives them: http/events/wire.ts normalises a stored record that differs). What
 * a replay checks of the stored records is looser (schemas/storedEventPayloads.ts).
 */
export const NoPayload = payload('NoPayload', 'An event without a body.', {});

export const CityLifecyclePayload = payload(
  'CityLifecyclePayload',
  'A city that was created or is leaving.',
  {
    name: str('City name (also the event subject).'),
    path: str('City directory.'),
  },
);
export type CityLifecyclePayload = Static<typeof CityLifecyclePayload>;

export const CityCreateSucceededPayload = payload(
  'CityCreateSucceededPayload',
  'Terminal success of an accepted city create.',
  {
    request_id: str('The request_id of the 202 answer.'),
    name: str('Resolved city name.'),
    path: str('Resolved absolute city directory.'),
  },
);
export type CityCreateSucceededPayload = Static<typeof CityCreateSucceededPayload>;

export const CityUnregisterSucceededPayload = payload(
  'CityUnregisterSucceededPayload',
  'Terminal success of an accepted city unregister.',
  {
    request_id: str('The request_id of the 202 answer.'),
    name: str('Name of the city that left the supervisor.'),
    path: str('Absolute city directory (left untouched on disk).'),
  },
);
export type CityUnregisterSucceededPayload = Static<typeof CityUnregisterSucceededPayload>;

export const RequestFailedPayload = payload(
  'RequestFailedPayload',
  'Terminal failure of an accepted request.',
  {
    request_id: str('The request_id of the 202 answer.'),
    // Literal by literal (not mapped from a string[]): that keeps the operations in the static type.
    operation: Type.Union(
      [
        Type.Literal('city.create'),
        Type.Literal('city.unregister'),
        Type.Literal('session.create'),
        Type.Literal('session.message'),
        Type.Literal('session.submit'),
      ],
      { description: 'The operation that failed.' },
    ),
    error_code: str('Stable machine-readable code.'),
    error_message: str('What went wrong, for people.'),
  },
);
export type RequestFailedPayload = Static<typeof RequestFailedPayload>;

export const SupervisorStartedPayload = payload('SupervisorStartedPayload', 'A supervisor came up.', {
  previous_exit: Type.Union([Type.Literal('clean'), Type.Literal('crash'), Type.Literal('unknown')], {
    description: 'How the previous instance ended, as far as the supervisor can tell.',
  }),
});
export type SupervisorStartedPayload = Static<typeof SupervisorStartedPayload>;

export const SupervisorShutdownPayload = payload(
  'SupervisorShutdownPayload',
  'A supervisor shutdown began.',
  {
    source: Type.Union([Type.Literal('signal'), Type.Literal('socket_stop')], { description: 'Trigger.' }),
    mode: Type.Union(
      [Type.Literal('destructive'), Type.Literal('preserve_sessions'), Type.Literal('unknown')],
      { description: 'Resulting shutdown mode.' },
    ),
    signal: Type.Optional(str('Signal name, for source=signal.')),
    client_addr: Type.Optional(str('Peer address, for source=socket_stop.')),
  },
);

export const SupervisorRequestPayload = payload(
  'SupervisorRequestPayload',
  'Audit record of one API request.',
  {
    method: str('HTTP method.'),
    path: str('Request path without the query.'),
    status: int('Response status (0 while a stream is still open).'),
    duration_ms: int('Handler time.'),
    remote_addr_class: Type.Union(
      [Type.Literal('loopback'), Type.Literal('private'), Type.Literal('public'), Type.Literal('unknown')],
      { description: 'Network class of the peer.' },
    ),
    origin_allowed: Type.Boolean({ description: 'Whether the Origin passed the CORS policy.' }),
    phase: Type.Union([Type.Literal('start'), Type.Literal('complete')], { description: 'Audit phase.' }),
    host: Type.Optional(str('Host header without the port.')),
  },
);

export const SupervisorFSPressureSkippedTickPayload = payload(
  'SupervisorFSPressureSkippedTickPayload',
  'A reconciler tick shed under filesystem pressure.',
  {
    avg60: num('Observed IO pressure (PSI some avg60).'),
    threshold: num('Configured threshold.'),
    consecutive_skips: int('Skips in a row, this one included.'),
    max_consecutive_skips: int('Skips allowed before a forced tick.'),
    outcome: str('skipped or forced.'),
    trigger: Type.Optional(str('What asked for the tick.')),
  },
);

export const BeadEventPayload = payload(
  'BeadEventPayload',
  'A bead was created, changed, closed or deleted.',
  {
    bead: BeadSchema,
  },
);
export type BeadEventPayload = Static<typeof BeadEventPayload>;

export const BeadClaimRejectedPayload = payload(
  'BeadClaimRejectedPayload',
  'A claim on a held bead was refused.',
  {
    bead_id: str('Bead.'),
    attempted_claimant: str('Who tried to claim it.'),
    existing_claimant: str('Who holds it.'),
  },
);

export const BeadWorktreeReapedPayload = payload(
  'BeadWorktreeReapedPayload',
  "A bead's worktree was removed.",
  {
    bead_id: str('Bead.'),
    branch: str('Branch of the worktree.'),
    path: str('Worktree path.'),
    rig: str('Rig.'),
  },
);

export const BeadWorktreeReapSkippedPayload = payload(
  'BeadWorktreeReapSkippedPayload',
  "A bead's worktree was kept.",
  { bead_id: str('Bead.'), path: str('Worktree path.'), reason: str('Why it was kept.'), rig: str('Rig.') },
);

export const MailEventPayload = payload('MailEventPayload', 'Something happened to a mail message.', {
  rig: str('Rig of the mail store.'),
  message: Type.Optional(MessageSchema),
});
export type MailEventPayload = Static<typeof MailEventPayload>;

export const RotatedPayload = payload(
  'RotatedPayload',
  'The active log was rotated; this is its first event.',
  {
    prior_archive: str('Archive just written.'),
    prior_first_seq: Type.Integer({ format: 'int64', minimum: 0, description: 'First seq in the archive.' }),
    prior_last_seq: Type.Integer({ format: 'int64', minimum: 0, description: 'Last seq in the archive.' }),
  },
);

export const EmergencyRecord = payload('Record', 'An escalation record mirrored into the city log.', {
  id: str('Record id.'),
  severity: str('Severity.'),
  actor: str('Who raised it.'),
  message: str('Text.'),
  created_at: time('When.'),
  hostname: Type.Optional(str('Host.')),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Metadata.' })),
  ref_bead: Type.Optional(str('Related bead.')),
  source_path: Type.Optional(str('Source file.')),
  source_pid: Type.Optional(int('Source process.')),
});

export const AdapterEventPayload = payload(
  'AdapterEventPayload',
  'An external-messaging adapter came or went.',
  {
    account_id: str('Adapter account.'),
    provider: str('Provider key.'),
  },
);

export const BoundEventPayload = payload('BoundEventPayload', 'A conversation was bound to a session.', {
  conversation_id: str('Conversation.'),
  provider: str('Chat provider.'),
  session_id: str('Session.'),
  agent_name: Type.Optional(str('Agent, when bound by agent.')),
});

export const UnboundEventPayload = payload('UnboundEventPayload', 'Bindings of a session were removed.', {
  count: int('Bindings removed.'),
  session_id: str('Session.'),
});

export const GroupCreatedEventPayload = payload(
  'GroupCreatedEventPayload',
  'A conversation group was created.',
  {
    conversation_id: str('Root conversation.'),
    mode: str('Group mode.'),
    provider: str('Chat provider.'),
  },
);

export const InboundEventPayload = payload('InboundEventPayload', 'An external message was routed in.', {
  actor: str('External sender.'),
  conversation_id: str('Conversation.'),
  provider: str('Chat provider.'),
  target_session: str('Session it was routed to.'),
  target_agent: Type.Optional(str('Agent it was routed to.')),
});

export const OutboundEventPayload = payload('OutboundEventPayload', 'A session posted to a conversation.', {
  conversation_id: str('Conversation.'),
  message_id: str('Provider message id.'),
  provider: str('Chat provider.'),
  session: str('Posting session.'),
});

export const OutboundChannelMismatchPayload = payload(
  'OutboundChannelMismatchPayload',
  'A post was refused: the conversation is bound to another session.',
  {
    conversation_id: str('Conversation.'),
    owner_session: str('Session holding the binding.'),
    posting_session: str('Session that tried to post.'),
    provider: str('Chat provider.'),
  },
);

export const StoreDiskWarnPayload = payload('StoreDiskWarnPayload', 'Store disk space is getting low.', {
  data_dir: str('Store data directory.'),
  floor_bytes: int('Hard floor.'),
  free_bytes: int('Free now.'),
  warn_bytes: int('Warning threshold.'),
});

export const StoreDiskCriticalPayload = payload(
  'StoreDiskCriticalPayload',
  'Store disk is below its floor.',
  {
    data_dir: str('Store data directory.'),
    floor_bytes: int('Hard floor.'),
    free_bytes: int('Free now.'),
  },
);

export const StoreMaintenanceDonePayload = payload(
  'StoreMaintenanceDonePayload',
  'A maintenance run finished.',
  {
    before_bytes: int('Size before.'),
    after_bytes: int('Size after.'),
    duration_s: num('Run time.'),
    snapshot_path: str('Backup snapshot.'),
  },
);

export const StoreMaintenanceFailedPayload = payload(
  'StoreMaintenanceFailedPayload',
  'A maintenance run failed.',
  {
    duration_s: num('Run time.'),
    error_msg: str('Error.'),
    stage: str('Failing stage.'),
    snapshot_path: Type.Optional(str('Snapshot, when one was taken.')),
  },
);

export const PostgresCredentialResolvedPayload = payload(
  'PostgresCredentialResolvedPayload',
  'Where a database credential came from (never the secret).',
  {
    host: str('Host.'),
    port: str('Port, as text.'),
    scope_kind: str('city or rig.'),
    scope_name: str('Scope.'),
    source: str('Origin of the credential.'),
    user: str('User.'),
  },
);

export const ProjectIdentityStampedPayload = payload(
  'ProjectIdentityStampedPayload',
  'A project id was stamped into a config layer.',
  {
    layer: str('Config layer.'),
    new_id: str('New id.'),
    old_id: Type.Optional(str('Previous id.')),
    scope_root: str('Directory stamped.'),
    source: str('Origin of the id.'),
  },
);

export const SessionLifecyclePayload = payload(
  'SessionLifecyclePayload',
  'A session stopped, crashed or failed.',
  {
    session_id: str('Session bead id.'),
    reason: Type.Optional(str('Short reason.')),
    template: Type.Optional(str('Session template.')),
  },
);

export const SessionCreateSucceededPayload = payload(
  'SessionCreateSucceededPayload',
  'Terminal success of an accepted session create.',
  { request_id: str('The request_id of the 202 answer.'), session: Type.Ref('SessionResponse') },
);

export const SessionMessageSucceededPayload = payload(
  'SessionMessageSucceededPayload',
  'Terminal success of an accepted session message.',
  { request_id: str('The request_id of the 202 answer.'), session_id: str('Session that got the message.') },
);

export const SessionSubmitSucceededPayload = payload(
  'SessionSubmitSucceededPayload',
  'Terminal success of an accepted session submit.',
  {
    request_id: str('The request_id of the 202 answer.'),
    session_id: str('Session that got the submission.'),
    intent: str('Resolved intent (default, follow_up, interrupt_now).'),
    queued: Type.Boolean({ description: 'Queued for later delivery.' }),
  },
);

export const SessionDrainAckedWithAssignedWorkPayload = payload(
  'SessionDrainAckedWithAssignedWorkPayload',
  'A session acknowledged a drain while still assigned work.',
  {
    bead_id: str('Work bead still assigned.'),
    session_id: str('Session.'),
    bead_status: Type.Optional(str('Bead status then.')),
    reason: Type.Optional(str('Context.')),
    template: Type.Optional(str('Pool template.')),
  },
);

export const SessionStrandedPayload = payload(
  'SessionStrandedPayload',
  'A pool session kept work after exiting.',
  {
    session_id: str('Session bead id.'),
    session_name: Type.Optional(str('Runtime session name.')),
    template: Type.Optional(str('Pool template.')),
    work_bead_ids: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Work beads still assigned.' }),
    ),
  },
);

export const SessionResetStalledPayload = payload(
  'SessionResetStalledPayload',
  'A committed session reset has not woken in time.',
  {
    elapsed_s: int('Seconds pending.'),
    reset_committed_at: str('When the reset was committed.'),
    session_name: str('Runtime session name.'),
    template: str('Template.'),
  },
);

const optStr = (d: string) => Type.Optional(str(d));
const optInt = (d: string) => Type.Optional(int(d));

export const WorkerOperationEventPayload = payload(
  'WorkerOperationEventPayload',
  'Telemetry of one worker operation.',
  {
    op_id: str('Operation id.'),
    operation: str('Operation name.'),
    result: str('Outcome.'),
    started_at: time('Start.'),
    finished_at: time('End.'),
    duration_ms: int('Duration.'),
    agent_name: optStr('Agent.'),
    bead_id: optStr('Work bead.'),
    cache_creation_tokens: optInt('Prompt-cache tokens written.'),
    cache_read_tokens: optInt('Prompt-cache tokens read.'),
    completion_tokens: optInt('Output tokens.'),
    cost_usd_estimate: Type.Optional(num('Estimated cost in USD.')),
    delivered: Type.Optional(Type.Boolean({ description: 'Delivered.' })),
    error: optStr('Error.'),
    latency_ms: optInt('Model latency.'),
    model: optStr('Model.'),
    prompt_sha: optStr('Prompt digest.'),
    prompt_tokens: optInt('Input tokens.'),
    prompt_version: optStr('Prompt template version.'),
    provider: optStr('Provider.'),
    queued: Type.Optional(Type.Boolean({ description: 'Queued.' })),
    run_id: optStr('Run root.'),
    session_id: optStr('Session.'),
    session_name: optStr('Runtime session name.'),
    template: optStr('Template.'),
    transport: optStr('Transport.'),
    unpriced: Type.Optional(Type.Boolean({ description: 'Tokens seen but no price known.' })),
  },
);
