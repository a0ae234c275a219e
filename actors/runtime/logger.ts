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
  pino({ name: 'gc-supervisor', ...TOKEN_REDACTION }, pino.destination({ fd: 2, sync: true }));

/**
 * Keeps the API token out of every log line: the bearer header and cookies are censored, and a request's
 * URL loses the value of its `access_token` parameter (EventSource clients pass the token there).
 */
export const TOKEN_REDACTION: pino.LoggerOptions = {
  redact: {
    paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie'],
    censor: '[redacted]',
  },
  serializers: {
    req: (req: { method?: string; url?: string; id?: unknown }) => ({
      method: req.method,
      url: typeof req.url === 'string' ? redactTokenInUrl(req.url) : req.url,
      id: req.id,
    }),
  },
};

let fallback: Logger | undefined;

/** For actors built without a logger (tests, benchmarks, tools): one shared logger of the same format. */
export const defaultLogger = (): Logger => (fallback ??= createLogger());

/** `url` with the value of any `access_token` parameter replaced, for logs. Pure. */
export const redactTokenInUrl = (url: string): string =>
  url.replace(/([?&]access_token=)[^&#]*/gi, '$1[redacted]');
