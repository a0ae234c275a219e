import { Type, type Static } from 'typebox';
import { blockingQueryProperties, nullableArray, pagingQueryProperties } from './beadsCommon.ts';

/** A mail message (upstream `Message`); stored as a bead of type `message`. */
export const MessageSchema = Type.Object(
  {
    id: Type.String(),
    from: Type.String(),
    to: Type.String(),
    subject: Type.String(),
    body: Type.String(),
    // Go's zero time, what upstream's typed decode gives an event's message that lacks it (http/events/wire.ts).
    created_at: Type.String({ format: 'date-time', default: '0001-01-01T00:00:00Z' }),
    read: Type.Boolean(),
    thread_id: Type.Optional(Type.String()),
    reply_to: Type.Optional(Type.String()),
    rig: Type.Optional(Type.String()),
    priority: Type.Optional(Type.Integer()),
    cc: Type.Optional(nullableArray(Type.String())),
  },
  { additionalProperties: false },
);
export type Message = Static<typeof MessageSchema>;

/** `POST /mail` body. */
export const MailSendBodySchema = Type.Object(
  {
    to: Type.String({ minLength: 1, description: 'Recipient name.' }),
    subject: Type.String({ minLength: 1, description: 'Message subject.' }),
    body: Type.Optional(Type.String({ description: 'Message body.' })),
    from: Type.Optional(Type.String({ description: 'Sender name.' })),
    rig: Type.Optional(Type.String({ description: 'Rig name.' })),
  },
  { additionalProperties: false },
);
export type MailSendBody = Static<typeof MailSendBodySchema>;

/** `POST /mail/{id}/reply` body. */
export const MailReplyBodySchema = Type.Object(
  {
    body: Type.Optional(Type.String({ description: 'Reply body.' })),
    from: Type.Optional(Type.String({ description: 'Sender name.' })),
    subject: Type.Optional(Type.String({ description: 'Reply subject.' })),
  },
  { additionalProperties: false },
);
export type MailReplyBody = Static<typeof MailReplyBodySchema>;

/** `GET /mail` query. */
export const MailListQuerySchema = Type.Object(
  {
    ...blockingQueryProperties,
    ...pagingQueryProperties,
    agent: Type.Optional(Type.String({ description: 'Filter by agent name.' })),
    status: Type.Optional(Type.String({ description: 'Filter by status (unread, all).' })),
    rig: Type.Optional(Type.String({ description: 'Filter by rig name.' })),
  },
  { additionalProperties: false },
);
export type MailListQuery = Static<typeof MailListQuerySchema>;

/** `?rig=` lookup hint of the per-message routes. */
export const MailRigQuerySchema = Type.Object(
  { rig: Type.Optional(Type.String({ description: 'Rig hint.' })) },
  { additionalProperties: false },
);

/** `GET /mail/count` query. */
export const MailCountQuerySchema = Type.Object(
  {
    agent: Type.Optional(Type.String({ description: 'Filter by agent name.' })),
    rig: Type.Optional(Type.String({ description: 'Filter by rig name.' })),
  },
  { additionalProperties: false },
);
export type MailCountQuery = Static<typeof MailCountQuerySchema>;

/** A page of messages. */
export const MailListBodySchema = Type.Object(
  {
    items: nullableArray(MessageSchema, { description: 'The list of messages.' }),
    total: Type.Integer({ description: 'Total number of messages matching the query.' }),
    next_cursor: Type.Optional(Type.String({ description: 'Cursor for the next page of results.' })),
    partial: Type.Optional(Type.Boolean()),
    partial_errors: Type.Optional(nullableArray(Type.String())),
  },
  { additionalProperties: false },
);
export type MailListBody = Static<typeof MailListBodySchema>;

/** `GET /mail/count` answer. */
export const MailCountBodySchema = Type.Object(
  {
    total: Type.Integer({ description: 'Total message count.' }),
    unread: Type.Integer({ description: 'Unread message count.' }),
    partial: Type.Optional(Type.Boolean()),
    partial_errors: Type.Optional(nullableArray(Type.String())),
  },
  { additionalProperties: false },
);
export type MailCountBody = Static<typeof MailCountBodySchema>;

/** Payload of `mail.*` events. */
export interface MailEventPayload {
  rig: string;
  message?: Message;
}
