/**
 * Pending interactions of one city's sessions: what a session asks (an approval), the answer, and the
 * city-wide list. Reads capture the runtime's screen (one `tmux capture-pane`) or ask its protocol (ACP); a
 * response reads again, checks the prompt is the one answered, answers exactly once (a key typed, or the
 * protocol's reply; never re-sent) and waits for the prompt to clear.
 */
import { ConflictError, ValidationError } from '../../runtime/errors.ts';
import type { SessionRecord } from '../../../machines/sessions/sessionRecord.ts';
import type { RuntimeProvider } from '../runtime/provider.ts';
import type { SessionBook } from '../sessionBook.ts';
import type { SessionReconciler } from '../sessionReconciler.ts';

/** What pending detection needs of the session service (not the service itself: it calls this). */
export interface PendingHost {
  readonly book: SessionBook;
  readonly reconciler: SessionReconciler;
  readonly runtime: RuntimeProvider;
}
import type { PendingInteraction } from './detect.ts';
import { APPROVAL_KEYS, APPROVAL_OPTIONS } from './patterns.ts';
import { answerPending, readPending } from './readPending.ts';

export interface RespondInput {
  action: string;
  request_id?: string;
  text?: string;
  metadata?: Record<string, string>;
}

export interface CityPendingEntry {
  session_id: string;
  request_id: string;
  kind: string;
}

export interface PendingOptions {
  /** How long a response waits for the prompt to clear (upstream: 3 checks 500 ms apart). */
  clearTimeoutMs?: number;
  clearPollMs?: number;
}

/** A conflict whose detail prefix is upstream's interaction code (`no_pending:`, `invalid_interaction:`). */
export class InteractionConflictError extends ConflictError {
  constructor(
    override readonly code: 'no_pending' | 'invalid_interaction' | 'pending_interaction',
    message: string,
  ) {
    super(message);
  }
}

export class SessionPending {
  constructor(
    readonly service: PendingHost,
    readonly options: PendingOptions = {},
  ) {}

  #running(s: SessionRecord): boolean {
    return !s.closed && this.service.reconciler.seen.get(s.sessionName)?.running === true;
  }

  /** The prompt a session shows now; undefined when none (or it is not running). */
  async current(s: SessionRecord): Promise<PendingInteraction | undefined> {
    if (s.closed) return undefined;
    try {
      return await readPending(this.service.runtime, s.sessionName);
    } catch {
      return undefined;
    }
  }

  /** `GET /session/{id}/pending`. @throws NotFoundError. */
  async pending(target: string): Promise<{ supported: boolean; pending?: PendingInteraction }> {
    const s = this.service.book.resolve(target);
    const pending = await this.current(s);
    return pending ? { supported: true, pending } : { supported: true };
  }

  /**
   * Refuses a delivery while the session waits for an answer (409 `pending_interaction:`), as upstream
   * refuses a message or submit then. @throws InteractionConflictError, NotFoundError.
   */
  async assertNone(target: string): Promise<void> {
    const s = this.service.book.resolve(target);
    const pending = await this.current(s);
    if (pending)
      throw new InteractionConflictError(
        'pending_interaction',
        `session ${s.id} is waiting for a response to ${pending.request_id} (${pending.prompt ?? pending.kind}); ` +
          'answer it with POST /session/{id}/respond',
      );
  }

  /**
   * `POST /session/{id}/respond`: answers the prompt the session shows.
   * @throws NotFoundError; InteractionConflictError (`no_pending:` nothing to answer, `invalid_interaction:` a
   *   request id that is not the current prompt's, or a prompt that did not clear); ValidationError (an action
   *   the prompt does not take).
   */
  async respond(target: string, input: RespondInput): Promise<string> {
    const s = this.service.book.resolve(target);
    if (!this.#running(s)) throw new InteractionConflictError('no_pending', `session ${s.id} is not running`);
    const pending = await this.current(s);
    if (!pending)
      throw new InteractionConflictError('no_pending', `session ${s.id} has no pending interaction`);
    if (input.request_id !== undefined && input.request_id !== '' && input.request_id !== pending.request_id)
      throw new InteractionConflictError(
        'invalid_interaction',
        `request ${input.request_id} is not pending (the prompt changed to ${pending.request_id})`,
      );
    const key = keyFor(input);
    await answerPending(this.service.runtime, s.sessionName, pending, key);
    await this.#cleared(s, pending.request_id);
    return s.id;
  }

  async #cleared(s: SessionRecord, requestId: string): Promise<void> {
    const deadline = Date.now() + (this.options.clearTimeoutMs ?? 1500);
    const poll = this.options.clearPollMs ?? 50;
    for (;;) {
      const now = await this.current(s);
      if (now?.request_id !== requestId) return;
      if (Date.now() >= deadline)
        throw new InteractionConflictError(
          'invalid_interaction',
          `the prompt ${requestId} did not clear after the response (the key was typed once and not repeated)`,
        );
      await new Promise((r) => setTimeout(r, poll));
    }
  }

  /** `GET /v0/city/{c}/pending`: every open running session's prompt. */
  async cityPending(): Promise<CityPendingEntry[]> {
    const open = this.service.book.openSessions().filter((s) => this.#running(s));
    const found = await Promise.all(open.map(async (s) => ({ s, p: await this.current(s) })));
    return found
      .filter((f): f is { s: SessionRecord; p: PendingInteraction } => f.p !== undefined)
      .map(({ s, p }) => ({ session_id: s.id, request_id: p.request_id, kind: p.kind }));
  }
}

/** The key a response types. @throws ValidationError for an action an approval menu does not take. */
export function keyFor(input: RespondInput): string {
  const action = input.action.trim().toLowerCase();
  const key = APPROVAL_KEYS[action];
  if (key) return key;
  if (action === 'answer') {
    const text = (input.text ?? '').trim();
    const byNumber = ['1', '2', '3'].indexOf(text);
    const byLabel = APPROVAL_OPTIONS.findIndex((o) => o.toLowerCase() === text.toLowerCase());
    const index = byNumber >= 0 ? byNumber : byLabel;
    if (index >= 0) return String(index + 1);
    throw new ValidationError(
      `answer text must be one of the prompt's options (${APPROVAL_OPTIONS.join(' | ')} or 1-3)`,
      'invalid',
      {
        errors: [{ location: 'body.text', message: 'not an option of the prompt', value: input.text ?? '' }],
      },
    );
  }
  throw new ValidationError(
    `action must be approve, approve_always, deny or answer, not ${JSON.stringify(input.action)}`,
    'invalid',
    { errors: [{ location: 'body.action', message: 'unknown action', value: input.action }] },
  );
}
