import { until as poll } from '../helpers/until.ts';

/** Polls `check` every 100 ms until it gives a value (containers are slow); throws naming `what` after `ms`. */
export const until = <T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  ms = 60_000,
): Promise<T> => poll(what, check, ms, 100);
