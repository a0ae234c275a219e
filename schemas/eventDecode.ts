import { Compile } from 'typebox/compile';
import type { JournalEvent } from './event.ts';
import { EVENT_CATALOG, type CatalogEventType, type PayloadOf } from './eventCatalog.ts';

/**
 * A recorded event whose payload does not match its catalogue schema, found while folding a log into
 * state (replay, catch-up). Folding stops at it: a supervisor that skipped it would run with state its log
 * does not support, and a default in place of a missing field is wrong state that looks right. The wire
 * is another matter (http/events/wire.ts normalises such payloads, as upstream does, and serves them).
 */
export class DamagedRecordError extends Error {
  constructor(
    /** The log the record is in: a city name or `__supervisor__`. */
    readonly log: string,
    readonly seq: number,
    readonly type: string,
    /** What is wrong, one entry per problem (`/path: message`). */
    readonly problems: string[],
  ) {
    super(`damaged record in log ${log} at seq ${seq} (${type}): ${problems.join('; ')}`);
    this.name = 'DamagedRecordError';
  }
}

type Checker = {
  Check(value: unknown): boolean;
  Errors(value: unknown): { instancePath: string; message: string }[];
};
// Compiled once per type, on first use: replay checks every folded record, up to millions at start-up.
const checkers = new Map<CatalogEventType, Checker>();

function checkerFor(type: CatalogEventType): Checker {
  let checker = checkers.get(type);
  if (!checker) checkers.set(type, (checker = Compile(EVENT_CATALOG[type]) as unknown as Checker));
  return checker;
}

/**
 * The payload of `event`, a record of catalogue type `type`, decoded through the type's schema (an absent
 * payload is `{}`, as on the wire). `extra` adds what a fold needs beyond the schema (a problem text, or
 * undefined when fine). Pure (compiled validators are cached).
 * @throws DamagedRecordError when the payload does not match: with the log, seq and every problem.
 */
export function payloadAs<K extends CatalogEventType>(
  log: string,
  event: Pick<JournalEvent, 'seq' | 'type' | 'payload'>,
  type: K,
  extra?: (payload: PayloadOf<K>) => string | undefined,
): PayloadOf<K> {
  const value = event.payload === undefined ? {} : event.payload;
  const checker = checkerFor(type);
  if (!checker.Check(value)) {
    const problems = checker.Errors(value).map((e) => `${e.instancePath || '/'}: ${e.message}`);
    throw new DamagedRecordError(log, event.seq, event.type, problems);
  }
  const payload = value as PayloadOf<K>;
  const problem = extra?.(payload);
  if (problem !== undefined) throw new DamagedRecordError(log, event.seq, event.type, [problem]);
  return payload;
}
