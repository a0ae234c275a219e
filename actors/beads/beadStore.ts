import type { BeadCreateBody } from '../../schemas/beads.ts';
import type { ConvoyCreateBody } from '../../schemas/convoys.ts';
import type { MailReplyBody, MailSendBody, Message } from '../../schemas/mail.ts';
import type { BeadPatch, ClaimResult, IdempotencyClaim } from '../../machines/beads/commands.ts';
import { checkConvoyItems } from '../../machines/beads/decideConvoy.ts';
import type { BeadModel, StoredBead } from '../../machines/beads/model.ts';
import type { Outcome } from '../../machines/beads/decision.ts';
import type { EventContext } from '../../machines/beads/events.ts';
import type { BeadCommandRunner, StartupStats } from './commandRunner.ts';
import { InFlightKeys, requestHash } from './idempotency.ts';
import { rejectionError } from './rejections.ts';

/** Who asks: the events' actor (default `api`). */
export interface CommandOptions {
  actor?: string;
}

/** A command that honours an Idempotency-Key. */
export interface KeyedOptions extends CommandOptions {
  idempotencyKey?: string;
}

const DEFAULT_ACTOR = 'api';

/**
 * One city's bead store: the beads, mail and convoys families' commands and read model, over the
 * city journal. Every mutation is a command decided on the folded model and appended fenced (see
 * {@link BeadCommandRunner}); reads are pure queries over `model` (see `machines/beads`).
 *
 * Every command method throws the catalogue errors of its refusals: NotFoundError (404),
 * ConflictError (409), BadRequestError (400), IdempotencyMismatchError (422), InFlightError (409);
 * and UnavailableError (503) when the journal cannot append.
 */
export class BeadStore {
  readonly #keys = new InFlightKeys();

  constructor(
    readonly city: string,
    private readonly runner: BeadCommandRunner,
    private readonly clock: () => Date,
  ) {}

  /** The folded model. Read it, never write it: the runner is its only writer. */
  get model(): Readonly<BeadModel> {
    return this.runner.model;
  }

  /** The city's event index the model reflects (its last folded seq): `X-GC-Index`. */
  get index(): number {
    return this.runner.index;
  }

  /** How the model was built at start-up (snapshot seq, events replayed, time). */
  get startup(): StartupStats {
    return this.runner.startup;
  }

  /** Now, in ms since the epoch, from the store's clock (the ready rule's notion of "deferred"). */
  now(): number {
    return this.clock().getTime();
  }

  /** See {@link BeadCommandRunner.waitForIndex}. */
  waitForIndex(index: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.runner.waitForIndex(index, timeoutMs, signal);
  }

  /**
   * Runs another family's pure decider over this model (sessions are beads of type `session`): see
   * {@link BeadCommandRunner.runDecider}. Refusals throw the catalogue errors, as the commands here do.
   */
  decide<R>(
    decider: (model: Readonly<BeadModel>, ctx: EventContext) => Outcome<R>,
    opts: CommandOptions = {},
  ): Promise<R> {
    return this.runner.runDecider(decider, opts.actor ?? DEFAULT_ACTOR);
  }

  /** Creates a bead (`bead.created`). A keyed retry answers the original bead with `replayed`. */
  create(input: BeadCreateBody, opts: KeyedOptions = {}): Promise<{ bead: StoredBead; replayed: boolean }> {
    return this.#keyed('create-bead', opts.idempotencyKey, input, (idempotency) =>
      this.#run({ type: 'CreateBead', input, ...(idempotency ? { idempotency } : {}) }, opts),
    );
  }

  /** Patches a bead (`bead.updated`, or `bead.closed` when it moves to closed). */
  update(id: string, patch: BeadPatch, opts: CommandOptions = {}): Promise<StoredBead> {
    return this.#run({ type: 'UpdateBead', id, patch }, opts);
  }

  /** Hides a bead from the ready view until `until` (RFC 3339), or shows it again with null. */
  defer(id: string, until: string | null, opts: CommandOptions = {}): Promise<StoredBead> {
    return this.#run({ type: 'UpdateBead', id, patch: { defer_until: until } }, opts);
  }

  /** Closes an open bead (`bead.closed`); a closed one is a 409. */
  close(id: string, opts: CommandOptions = {}): Promise<StoredBead> {
    return this.#run({ type: 'CloseBead', id }, opts);
  }

  /** Reopens a closed bead (`bead.updated`); one that is not closed is a 409. */
  reopen(id: string, opts: CommandOptions = {}): Promise<StoredBead> {
    return this.#run({ type: 'ReopenBead', id }, opts);
  }

  /** Deletes a bead (`bead.deleted` with its last snapshot); its id is never handed out again. */
  delete(id: string, opts: CommandOptions = {}): Promise<StoredBead> {
    return this.#run({ type: 'DeleteBead', id }, opts);
  }

  /** Hooks a bead to an agent or session. */
  assign(id: string, assignee: string, opts: CommandOptions = {}): Promise<StoredBead> {
    return this.#run({ type: 'AssignBead', id, assignee }, opts);
  }

  /**
   * A worker takes a bead (assignee + in_progress). Held by another, it is refused without error:
   * `{claimed: false, holder}`, and `bead.claim_rejected` is recorded.
   */
  claim(id: string, claimant: string, opts: CommandOptions = {}): Promise<ClaimResult> {
    return this.#run({ type: 'ClaimBead', id, claimant }, opts);
  }

  /** Adds the edge `id → dependsOn` (default kind `blocks`); an ordering cycle is a 409. */
  addDependency(
    id: string,
    dependsOn: string,
    depType = 'blocks',
    opts: CommandOptions = {},
  ): Promise<StoredBead> {
    return this.#run({ type: 'AddDependency', id, dependsOn, depType }, opts);
  }

  /** Removes the edges `id → dependsOn` (of `depType` only, when given); none there is a 404. */
  removeDependency(
    id: string,
    dependsOn: string,
    depType?: string,
    opts: CommandOptions = {},
  ): Promise<StoredBead> {
    return this.#run({ type: 'RemoveDependency', id, dependsOn, ...(depType ? { depType } : {}) }, opts);
  }

  /** Sends a message (`bead.created` + `mail.sent`). A keyed retry answers the original message. */
  sendMail(input: MailSendBody, opts: KeyedOptions = {}): Promise<{ message: Message; replayed: boolean }> {
    return this.#keyed('send-mail', opts.idempotencyKey, input, (idempotency) =>
      this.#run({ type: 'SendMail', input, ...(idempotency ? { idempotency } : {}) }, opts),
    );
  }

  /** Replies to a message (`bead.created` + `mail.replied`). */
  replyMail(
    id: string,
    input: MailReplyBody,
    opts: KeyedOptions = {},
  ): Promise<{ message: Message; replayed: boolean }> {
    return this.#keyed(`reply-mail:${encodeURIComponent(id)}`, opts.idempotencyKey, input, (idempotency) =>
      this.#run({ type: 'ReplyMail', id, input, ...(idempotency ? { idempotency } : {}) }, opts),
    );
  }

  /** Marks a message read (`bead.updated` + `mail.marked_read`); already read writes nothing. */
  markMailRead(id: string, opts: CommandOptions = {}): Promise<Message> {
    return this.#run({ type: 'MarkMailRead', id }, opts);
  }

  /** Marks a message unread (`bead.updated` + `mail.marked_unread`); already unread writes nothing. */
  markMailUnread(id: string, opts: CommandOptions = {}): Promise<Message> {
    return this.#run({ type: 'MarkMailUnread', id }, opts);
  }

  /** Archives a message: closes its bead (`bead.closed` + `mail.archived`); twice writes nothing. */
  archiveMail(id: string, opts: CommandOptions = {}): Promise<Message> {
    return this.#run({ type: 'ArchiveMail', id }, opts);
  }

  /** Deletes a message's bead (`bead.deleted` + `mail.deleted`). */
  deleteMail(id: string, opts: CommandOptions = {}): Promise<Message> {
    return this.#run({ type: 'DeleteMail', id }, opts);
  }

  /**
   * Creates a convoy holding `items`: the convoy bead, one membership step per item, then
   * `convoy.created`. Items are checked before anything is written (404 for a missing one).
   */
  async createConvoy(input: ConvoyCreateBody, opts: CommandOptions = {}): Promise<StoredBead> {
    const items = [...new Set(input.items ?? [])];
    const convoy = await this.#run(
      { type: 'CreateConvoy', title: input.title, items, ...(input.rig ? { rig: input.rig } : {}) },
      opts,
    );
    await this.#members(convoy.id, items, true, opts);
    await this.#run({ type: 'AnnounceConvoy', convoyId: convoy.id }, opts);
    return convoy;
  }

  /** Makes `items` members of convoy `id` (re-parents them); all are checked first. */
  addToConvoy(id: string, items: readonly string[], opts: CommandOptions = {}): Promise<void> {
    return this.#changeMembers(id, items, 'add', opts);
  }

  /** Takes `items` out of convoy `id`; each must be a member (400 otherwise). */
  removeFromConvoy(id: string, items: readonly string[], opts: CommandOptions = {}): Promise<void> {
    return this.#changeMembers(id, items, 'remove', opts);
  }

  /** Closes a convoy bead (`bead.closed` + `convoy.closed`); a closed one writes nothing, a non-convoy is a 400. */
  closeConvoy(id: string, opts: CommandOptions = {}): Promise<StoredBead> {
    return this.#run({ type: 'CloseConvoy', id }, opts);
  }

  /** Deletes a convoy bead (`bead.deleted`); its members keep their `parent`. */
  deleteConvoy(id: string, opts: CommandOptions = {}): Promise<StoredBead> {
    return this.#run({ type: 'DeleteConvoy', id }, opts);
  }

  /** Stops the store: no new commands, queued ones finish, blocked reads are released. */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  async #changeMembers(id: string, items: readonly string[], mode: 'add' | 'remove', opts: CommandOptions) {
    const unique = [...new Set(items)];
    const problem = checkConvoyItems(this.model, id, unique, mode);
    if (problem) throw rejectionError(problem);
    await this.#members(id, unique, mode === 'add', opts);
  }

  async #members(convoyId: string, items: readonly string[], member: boolean, opts: CommandOptions) {
    for (const id of items) await this.#run({ type: 'SetConvoyMember', convoyId, id, member }, opts);
  }

  #run<C extends Parameters<BeadCommandRunner['run']>[0]>(command: C, opts: CommandOptions) {
    return this.runner.run(command, opts.actor ?? DEFAULT_ACTOR);
  }

  /**
   * Runs a keyed request at most once per `<operation>:<key>`: a key in flight is refused (409, or 422
   * with another body); a completed one is answered by the decider from the recorded bead.
   */
  async #keyed<R>(
    operation: string,
    key: string | undefined,
    body: unknown,
    run: (claim?: IdempotencyClaim) => Promise<R>,
  ): Promise<R> {
    if (key === undefined || key === '') return run();
    const claim = { key: `${operation}:${key}`, hash: requestHash(body) };
    this.#keys.reserve(claim.key, claim.hash);
    try {
      return await run(claim);
    } finally {
      this.#keys.release(claim.key);
    }
  }
}
