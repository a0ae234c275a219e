/**
 * The create decider of the sessions family: a new session bead in `creating`, its create request
 * pending on it. Pure.
 */
import type { BeadCreateBody } from '../../schemas/beads.ts';
import { decideCreate, accept, reject, type Outcome, formatId } from '../beads/index.ts';
import type { EventContext, BeadModel } from '../beads/index.ts';
import { aliasTaken, type Meta } from './sessionChange.ts';
import {
  K,
  SESSION_BEAD_TYPE,
  SESSION_LABEL,
  sessionNameFor,
  sessionOf,
  type SessionRecord,
} from './sessionRecord.ts';

export interface CreateSessionInput {
  template: string;
  provider: string;
  title: string;
  alias?: string;
  workDir: string;
  command: string;
  sessionKey?: string;
  /** The API create's request id; absent for a session the agent reconciler creates itself. */
  requestId?: string;
  /** `manual` (the API's), `ephemeral` (a pool instance), `named` (a configured named session). */
  origin?: 'manual' | 'ephemeral' | 'named';
  /** Extra metadata (mc_* keys, template_overrides, permission_mode). */
  metadata?: Meta;
  /** A keyed create (`Idempotency-Key`): recorded with the bead, so a retry finds it after a restart too. */
  idempotency?: { key: string; hash: string };
}

/** A new session bead in `creating`, its create request pending on it. */
export function decideCreateSession(
  model: Readonly<BeadModel>,
  input: CreateSessionInput,
  ctx: EventContext,
): Outcome<SessionRecord> {
  // A retry of a keyed create answers the session it made (before the alias check, which it would fail).
  const first = input.idempotency && model.idempotency.get(input.idempotency.key);
  if (first) {
    return first.hash === input.idempotency!.hash
      ? accept(sessionOf(model.beads.get(first.bead.id)?.bead ?? first.bead))
      : reject('idempotency_mismatch', 'Idempotency-Key reused with different request body');
  }
  if (input.alias && aliasTaken(model, input.alias)) {
    return reject('conflict', `session alias ${input.alias} is in use`);
  }
  const id = formatId(model.prefix, model.nextNumber);
  const metadata: Meta = {
    ...input.metadata,
    [K.template]: input.template,
    [K.provider]: input.provider,
    [K.sessionName]: sessionNameFor(id),
    [K.origin]: input.origin ?? 'manual',
    [K.workDir]: input.workDir,
    [K.command]: input.command,
    [K.state]: 'creating',
    [K.pendingCreateClaim]: 'true',
    [K.generation]: '0',
    [K.continuationEpoch]: '1',
  };
  if (input.requestId) metadata[K.createRequest] = input.requestId;
  if (input.alias) metadata[K.alias] = input.alias;
  if (input.sessionKey) metadata[K.sessionKey] = input.sessionKey;
  const body: BeadCreateBody = {
    title: input.title,
    type: SESSION_BEAD_TYPE,
    labels: [SESSION_LABEL, `template:${input.template}`],
    metadata,
  };
  const out = decideCreate(
    model,
    { type: 'CreateBead', input: body, ...(input.idempotency ? { idempotency: input.idempotency } : {}) },
    ctx,
  );
  if (!out.ok) return out;
  return accept(sessionOf(out.decision.result.bead), out.decision.event, out.decision.notices);
}
