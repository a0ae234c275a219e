import { Type } from 'typebox';

/**
 * The blocking-query parameters (`index`, `wait`), described alike on every route that has them; `maxWait`
 * is the route's ceiling as a Go duration (`2m` as upstream documents, `5m` on the event list as its code
 * clamps). The sentences before the 422s are upstream's own.
 */
export function blockingQueryParameters(maxWait: '2m' | '5m') {
  return {
    index: Type.Optional(
      Type.String({
        description:
          'Event sequence number; when provided, blocks until a newer event arrives. ' +
          'Anything but a non-negative decimal integer (at most 2^53 - 1) is a 422.',
      }),
    ),
    wait: Type.Optional(
      Type.String({
        description:
          `How long to block waiting for changes (Go duration string, e.g. 30s). Default 30s, max ${maxWait}. ` +
          'Anything but a positive Go duration is a 422.',
      }),
    ),
  };
}
