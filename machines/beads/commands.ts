import type { BeadCreateBody, BeadUpdateBody } from '../../schemas/beads.ts';
import type { MailReplyBody, MailSendBody } from '../../schemas/mail.ts';
import type { Message } from '../../schemas/mail.ts';
import type { StoredBead } from './model.ts';

/** A keyed request: `<operation>:<Idempotency-Key>` and the hash of its body. */
export interface IdempotencyClaim {
  key: string;
  hash: string;
}

/** A bead patch: the wire update body plus what only the store sets (`defer_until`). */
export interface BeadPatch extends BeadUpdateBody {
  /** Set the defer instant (RFC 3339), or clear it with null. */
  defer_until?: string | null;
}

/**
 * Every command of the beads family, discriminated by `type` (imperative names; the events they write
 * are past tense). `actor` is who asks (the event's actor); commands never carry time or ids: those
 * come from the decision context.
 */
export type BeadCommand =
  | { type: 'CreateBead'; input: BeadCreateBody; idempotency?: IdempotencyClaim; ephemeral?: boolean }
  | { type: 'UpdateBead'; id: string; patch: BeadPatch }
  | { type: 'CloseBead'; id: string }
  | { type: 'ReopenBead'; id: string }
  | { type: 'DeleteBead'; id: string }
  | { type: 'AssignBead'; id: string; assignee: string }
  | { type: 'ClaimBead'; id: string; claimant: string }
  | { type: 'AddDependency'; id: string; dependsOn: string; depType: string }
  | { type: 'RemoveDependency'; id: string; dependsOn: string; depType?: string }
  | { type: 'SendMail'; input: MailSendBody; idempotency?: IdempotencyClaim }
  | { type: 'ReplyMail'; id: string; input: MailReplyBody; idempotency?: IdempotencyClaim }
  | { type: 'MarkMailRead'; id: string }
  | { type: 'MarkMailUnread'; id: string }
  | { type: 'ArchiveMail'; id: string }
  | { type: 'DeleteMail'; id: string }
  | { type: 'CreateConvoy'; title: string; rig?: string; items: string[] }
  | { type: 'SetConvoyMember'; convoyId: string; id: string; member: boolean }
  | { type: 'AnnounceConvoy'; convoyId: string }
  | { type: 'CloseConvoy'; id: string }
  | { type: 'DeleteConvoy'; id: string };

/** The outcome of a claim: held (by the claimant now) or refused because another holds it. */
export type ClaimResult = { claimed: true; bead: StoredBead } | { claimed: false; holder: string };

/** What each command answers once its events are durable. */
export interface CommandResults {
  CreateBead: { bead: StoredBead; replayed: boolean };
  UpdateBead: StoredBead;
  CloseBead: StoredBead;
  ReopenBead: StoredBead;
  DeleteBead: StoredBead;
  AssignBead: StoredBead;
  ClaimBead: ClaimResult;
  AddDependency: StoredBead;
  RemoveDependency: StoredBead;
  SendMail: { message: Message; replayed: boolean };
  ReplyMail: { message: Message; replayed: boolean };
  MarkMailRead: Message;
  MarkMailUnread: Message;
  ArchiveMail: Message;
  DeleteMail: Message;
  CreateConvoy: StoredBead;
  SetConvoyMember: boolean;
  AnnounceConvoy: string;
  CloseConvoy: StoredBead;
  DeleteConvoy: StoredBead;
}

export type ResultOf<C extends BeadCommand> = CommandResults[C['type']];
