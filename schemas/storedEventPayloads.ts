import { Type } from 'typebox';

/**
 * What a replay checks of the records some stored payloads carry: their id (and a bead's type), never the
 * whole resource, so a log stays foldable when a resource's schema changes and the replay's fast path
 * (machines/beads/beadLine.ts) reads the same records the catalogue accepts. The wire serves these payloads
 * through upstream's closed schemas instead (schemas/eventPayloads.ts).
 */

const BeadSnapshot = Type.Object(
  { id: Type.Optional(Type.String()), issue_type: Type.Optional(Type.String()) },
  { description: 'The bead after the change (the Bead resource).', additionalProperties: true },
);

const MessageSnapshot = Type.Object(
  { id: Type.Optional(Type.String()) },
  { description: 'The message concerned (the Message resource).', additionalProperties: true },
);

const SessionSnapshot = Type.Object(
  { id: Type.Optional(Type.String()) },
  { description: 'The session as GET …/session/{id} returns it.', additionalProperties: true },
);

const StoredBeadEventPayload = Type.Object({ bead: BeadSnapshot }, { additionalProperties: false });

const StoredMailEventPayload = Type.Object(
  { rig: Type.String(), message: Type.Optional(MessageSnapshot) },
  { additionalProperties: false },
);

const StoredSessionCreateSucceededPayload = Type.Object(
  { request_id: Type.String(), session: SessionSnapshot },
  { additionalProperties: false },
);

/** The stored-record schemas of the registered types whose wire payload is a whole resource. */
export const STORED_PAYLOADS = {
  'bead.created': StoredBeadEventPayload,
  'bead.closed': StoredBeadEventPayload,
  'bead.deleted': StoredBeadEventPayload,
  'bead.updated': StoredBeadEventPayload,
  'mail.sent': StoredMailEventPayload,
  'mail.read': StoredMailEventPayload,
  'mail.archived': StoredMailEventPayload,
  'mail.marked_read': StoredMailEventPayload,
  'mail.marked_unread': StoredMailEventPayload,
  'mail.replied': StoredMailEventPayload,
  'mail.deleted': StoredMailEventPayload,
  'request.result.session.create': StoredSessionCreateSucceededPayload,
} as const;
