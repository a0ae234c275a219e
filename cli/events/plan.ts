import type { Scope } from '../cityScope.ts';
import { parseDuration } from '../duration.ts';
import { CliError } from '../errors.ts';
import { parseCompositeCursor } from '../../schemas/compositeCursor.ts';
import { parsePayloadMatch } from '../payloadMatch.ts';
import type { EventFilter } from './filter.ts';

/** The four things `gc events` can do (spec 6.4). */
export type EventsMode = 'list' | 'watch' | 'follow' | 'seq';

/** The flags of `gc events` as parsed by oclif (before validation). */
export interface EventsFlags {
  type?: string | undefined;
  since?: string | undefined;
  watch: boolean;
  follow: boolean;
  seq: boolean;
  timeout: string;
  after?: number | undefined;
  'after-cursor'?: string | undefined;
  'payload-match'?: string[] | undefined;
}

/** A validated `gc events` invocation. */
export interface EventsPlan {
  mode: EventsMode;
  filter: EventFilter;
  /** `--after`: a city seq; undefined when not given (start at the head). */
  after: number | undefined;
  /** `--after-cursor`: a composite supervisor cursor; undefined when not given. */
  afterCursor: string | undefined;
  /** `--timeout` of `--watch`, in ms. */
  timeoutMs: number;
}

/**
 * Validates the flags that need no server: mode exclusivity, `--after` with `--after-cursor`, and the syntax
 * of `--since`, `--timeout` and `--payload-match`. This is a pure function of the flags and the clock.
 * @throws CliError with the message the user sees after `gc events: `.
 */
export function planEvents(flags: EventsFlags, nowMs: number): EventsPlan {
  const modes = (['watch', 'follow', 'seq'] as const).filter((m) => flags[m]);
  if (modes.length > 1) throw new CliError(`--${modes.join(' and --')} are mutually exclusive`);
  const afterCursor = flags['after-cursor']?.trim() || undefined;
  if (flags.after !== undefined && afterCursor !== undefined) {
    throw new CliError('--after and --after-cursor are mutually exclusive');
  }
  if (afterCursor !== undefined) {
    try {
      parseCompositeCursor(afterCursor, '--after-cursor');
    } catch {
      throw new CliError(`invalid --after-cursor "${afterCursor}": expected name:seq pairs joined by ","`);
    }
  }
  const duration = (name: string, text: string): number => {
    try {
      return parseDuration(text);
    } catch (err) {
      throw new CliError(`invalid --${name} "${text}": ${(err as Error).message}`);
    }
  };
  const since = flags.since?.trim() ? duration('since', flags.since) : undefined;
  const timeoutMs = duration('timeout', flags.timeout);
  if (timeoutMs <= 0) throw new CliError(`invalid --timeout "${flags.timeout}": must be greater than 0`);
  let matcher;
  try {
    matcher = parsePayloadMatch(flags['payload-match'] ?? []);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  return {
    mode: modes[0] ?? 'list',
    filter: {
      type: flags.type?.trim() || undefined,
      sinceEpochMs: since === undefined ? undefined : nowMs - since,
      matcher,
    },
    after: flags.after,
    afterCursor,
    timeoutMs,
  };
}

/**
 * Checks the cursor flags against the resolved scope: `--after` is a city seq, `--after-cursor` a supervisor
 * cursor. Pure. @throws CliError
 */
export function checkScope(plan: EventsPlan, scope: Scope): void {
  if (scope.kind === 'supervisor' && plan.after !== undefined) {
    throw new CliError(
      '--after is only valid when a city is in scope; use --after-cursor for supervisor events',
    );
  }
  if (scope.kind === 'city' && plan.afterCursor !== undefined) {
    throw new CliError('--after-cursor is only valid in supervisor scope');
  }
}
