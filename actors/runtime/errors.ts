/**
 * The closed catalogue of failures the control plane reports. Each carries the HTTP status and the
 * `detail` prefix code that clients match on (spec 2.4); `http/problem.ts` is the only place that turns
 * them into Problem Details. Never string-match messages: use `instanceof` or the predicates below.
 */
export interface FieldError {
  /** Where the bad value is, as upstream writes it: `body.dir`, `query.index`, `path.cityName`. */
  location: string;
  message: string;
  value?: unknown;
}

export abstract class GcError extends Error {
  /** Detail prefix (`not_found`, `conflict`, …), or null for upstream's unprefixed details. */
  abstract readonly code: string | null;
  abstract readonly status: number;
  readonly errors: FieldError[] | undefined;
  /** The Problem Details `type` URI, for the few errors upstream types (`urn:gascity:error:sling-…`). */
  readonly type: string | undefined;

  constructor(message: string, options?: ErrorOptions & { errors?: FieldError[]; type?: string }) {
    super(message, options);
    this.name = new.target.name;
    this.errors = options?.errors;
    this.type = options?.type;
  }

  /** The Problem Details `detail`: `<code>: <message>`, or the bare message for unprefixed errors. */
  get detail(): string {
    return this.code === null ? this.message : `${this.code}: ${this.message}`;
  }
}

export class BadRequestError extends GcError {
  readonly status = 400;
  constructor(
    message: string,
    readonly code: string | null = 'invalid',
    options?: ErrorOptions & { errors?: FieldError[] },
  ) {
    super(message, options);
  }
}

/** Body, path or query values that fail their schema or a semantic check (422 `validation failed`). */
export class ValidationError extends GcError {
  readonly status = 422;
  constructor(
    message: string,
    readonly code: string | null = null,
    options?: ErrorOptions & { errors?: FieldError[] },
  ) {
    super(message, options);
  }
}

export class CsrfError extends GcError {
  readonly status = 403;
  readonly code = 'csrf';
  constructor() {
    super('X-GC-Request header required on mutation endpoints');
  }
}

export class ReadOnlyError extends GcError {
  readonly status = 403;
  readonly code = 'read_only';
  constructor() {
    super('mutations disabled: server bound to non-localhost address');
  }
}

/** A request without the supervisor's API token, or with another one (`GC_API_TOKEN`). */
export class UnauthorizedError extends GcError {
  readonly status = 401;
  readonly code = 'unauthorized';
  constructor() {
    super(
      'missing or invalid API token (Authorization: Bearer <token>, access_token or the gc_token cookie)',
    );
  }
}

/**
 * A write to a city this supervisor does not own (cluster mode): another supervisor holds its lease, or
 * this one lost it. `owner` names the holder and its API URL when known, so a client can go there.
 */
export class NotOwnerError extends GcError {
  readonly status = 421;
  readonly code = 'not_owner';
  constructor(
    readonly city: string,
    readonly owner?: { id: string; url: string },
  ) {
    super(
      owner
        ? `city ${city} is owned by supervisor ${owner.id} at ${owner.url}`
        : `city ${city} is not owned by this supervisor and has no owner right now`,
    );
  }
}

export class NotFoundError extends GcError {
  readonly status = 404;
  readonly code = 'not_found';
}

export class ConflictError extends GcError {
  readonly status = 409;
  readonly code: string = 'conflict';
}

/** A bare name that several things answer to (upstream's `ambiguous` error, its detail unprefixed). */
export class AmbiguousError extends GcError {
  readonly status = 409;
  readonly code = null;
}

/**
 * An append whose expected last sequence is stale: someone else wrote to the log first.
 * The one typed outcome of fencing, raised by every journal backend alike.
 */
export class SeqConflictError extends ConflictError {
  constructor(
    readonly log: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`log ${log} is at seq ${actual}, expected ${expected}`);
  }
}

export class IdempotencyMismatchError extends GcError {
  readonly status = 422;
  readonly code = 'idempotency_mismatch';
  constructor() {
    super('Idempotency-Key reused with different request body');
  }
}

export class InFlightError extends GcError {
  readonly status = 409;
  readonly code = 'in_flight';
  constructor() {
    super('request with this Idempotency-Key is already in progress');
  }
}

export class NotImplementedError extends GcError {
  readonly status = 501;
  readonly code = null;
}

/** A dependency (the journal's disk or broker, a provider) is not available right now; retry later. */
export class UnavailableError extends GcError {
  readonly status = 503;
  constructor(
    message: string,
    readonly code: string | null = 'unavailable',
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * Work that was done (durably) but whose effect could not be confirmed within its bound: create-agent's
 * wait until the new agent is visible. Not a refusal: retrying later (Retry-After) finds it done.
 */
export class GatewayTimeoutError extends GcError {
  readonly status = 504;
  constructor(
    message: string,
    readonly code: string | null = 'timeout',
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * A write the journal took but cannot say the fate of: it was sent (to the broker) and no answer came
 * within the bound, or part of it was stored before the rest failed. It is not a refusal: it may be in
 * the log already or land later. Retrying with the same Idempotency-Key applies it at most once.
 */
export class OutcomeUnknownError extends GcError {
  readonly status = 503;
  readonly code = 'journal_outcome_unknown';
  constructor(what: string, options?: ErrorOptions) {
    super(
      `${what}; the write may be stored or may still land. Retry with the same Idempotency-Key ` +
        '(a keyed request is applied at most once), or read the log before writing again',
      options,
    );
  }
}

/**
 * The answer to a write that failed after some of its events were stored: not a refusal. An error that
 * already says "unknown" stays as it is.
 */
export function partlyStored(log: string, err: unknown): OutcomeUnknownError {
  if (err instanceof OutcomeUnknownError) return err;
  return new OutcomeUnknownError(`journal ${log}: part of the write was stored before the rest failed`, {
    cause: err,
  });
}

export class InternalError extends GcError {
  readonly status = 500;
  readonly code = 'internal';
}

export const isGcError = (err: unknown): err is GcError => err instanceof GcError;

/** True when `err`, or anything in its `cause` chain, is a fencing conflict. */
export function isSeqConflict(err: unknown): err is SeqConflictError {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof SeqConflictError) return true;
  }
  return false;
}
