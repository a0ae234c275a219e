import { pino } from 'pino';

/**
 * What actors log through: the part of pino's logger they use, so the supervisor hands its actors the
 * very logger Fastify logs through (one structured format, JSON lines). `obj` carries the facts (an
 * `err` is serialized with its stack), `msg` says what happened.
 */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * The supervisor's logger: pino JSON lines on stderr, written synchronously so that nothing is lost when
 * the process dies right after. `http/main.ts` gives this same instance to Fastify.
 */
export const createLogger = (): pino.Logger =>
  pino({ name: 'gc-supervisor' }, pino.destination({ fd: 2, sync: true }));

let fallback: Logger | undefined;

/** For actors built without a logger (tests, benchmarks, tools): one shared logger of the same format. */
export const defaultLogger = (): Logger => (fallback ??= createLogger());
