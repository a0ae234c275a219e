import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  ValidationError,
  type GcError,
} from '../runtime/errors.ts';
import type { Rejection } from '../../machines/extmsg/decision.ts';

/**
 * The catalogue error of a refused extmsg command: 404 `not_found:`, 409 `conflict:`, 400 `invalid:`, or
 * 422 `processing_failed:` (upstream's code for a message it cannot process). A refusal naming a body field
 * carries it in `errors`. This is a pure function.
 */
export function rejectionError(rejection: Rejection): GcError {
  const errors = rejection.field
    ? { errors: [{ location: rejection.field, message: rejection.message }] }
    : {};
  switch (rejection.kind) {
    case 'not_found':
      return new NotFoundError(rejection.message);
    case 'conflict':
      return new ConflictError(rejection.message);
    case 'invalid':
      return new BadRequestError(rejection.message, 'invalid', errors);
    case 'unprocessable':
      return new ValidationError(rejection.message, 'processing_failed', errors);
  }
}
