import { randomHex } from '../runtime/randomHex.ts';

/** A city-scope async request id (`req-` and 24 hex digits, as the supervisor's). */
export const newRequestId = (): string => `req-${randomHex(12)}`;
