import {
  BadRequestError,
  ConflictError,
  IdempotencyMismatchError,
  NotFoundError,
  type GcError,
} from '../runtime/errors.ts';
import type { Rejection } from '../../machines/beads/decision.ts';

/** The catalogue error for a refused bead command (404, 409, 400 or 422). This is a pure function. */
export function rejectionError(rejection: Rejection): GcError {
  switch (rejection.kind) {
    case 'not_found':
      return new NotFoundError(rejection.message);
    case 'conflict':
      return new ConflictError(rejection.message);
    case 'invalid':
      return new BadRequestError(rejection.message);
    case 'idempotency_mismatch':
      return new IdempotencyMismatchError();
  }
}
