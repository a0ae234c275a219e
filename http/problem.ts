import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { GcError, type FieldError } from '../actors/runtime/errors.ts';
import type { ErrorModel } from '../schemas/problem.ts';

export const PROBLEM_TYPE = 'application/problem+json';

/** The RFC 9457 body every error answers with: the ErrorModel schema, its `errors[]` typed as FieldErrors. */
export type Problem = Omit<ErrorModel, 'errors'> & { errors?: FieldError[] };

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  421: 'Misdirected Request',
  422: 'Unprocessable Entity',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export const problem = (status: number, detail: string, errors?: FieldError[], type?: string): Problem => ({
  ...(type ? { type } : {}),
  title: TITLES[status] ?? 'Error',
  status,
  detail,
  ...(errors && errors.length > 0 ? { errors } : {}),
});

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** The refused value, where the check that failed keeps it (the query integer grammar does). */
  data?: unknown;
}

const LOCATION: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** Turns Ajv's errors into upstream's `errors[]` entries (`location: body.dir`). Pure. */
export function fieldErrors(context: string, errors: readonly AjvError[]): FieldError[] {
  const base = LOCATION[context] ?? context;
  return errors.map((e) => {
    const path = e.instancePath.split('/').filter(Boolean).join('.');
    const extra =
      e.keyword === 'required'
        ? String(e.params.missingProperty)
        : e.keyword === 'additionalProperties'
          ? String(e.params.additionalProperty)
          : '';
    const location = [base, path, extra].filter(Boolean).join('.');
    const message =
      e.keyword === 'required'
        ? `expected required property ${extra} to be present`
        : e.keyword === 'additionalProperties'
          ? `unexpected property ${extra}`
          : (e.message ?? e.keyword);
    return { location, message, ...('data' in e ? { value: e.data } : {}) };
  });
}

/** Maps any thrown value to a Problem. The one place errors become HTTP (style.md principle 5). */
export function toProblem(err: unknown): Problem {
  if (err instanceof GcError) return problem(err.status, err.detail, err.errors, err.type);
  const fe = err as Partial<FastifyError> & { validation?: AjvError[]; validationContext?: string };
  if (fe.validation) {
    return problem(422, 'validation failed', fieldErrors(fe.validationContext ?? 'body', fe.validation));
  }
  // Fastify refuses a Content-Type header it cannot parse before any body parser sees it.
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return problem(415, 'invalid: the Content-Type header is not a valid media type');
  }
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) return problem(status, `invalid: ${fe.message ?? 'bad request'}`);
  return problem(500, 'internal server error');
}

/** Sends a Problem Details response. */
export function sendProblem(reply: FastifyReply, p: Problem): FastifyReply {
  return reply.code(p.status).type(PROBLEM_TYPE).send(p);
}

/** Fastify error handler: logs unexpected failures, answers everything as Problem Details. */
export function errorHandler(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const p = toProblem(err);
  if (p.status >= 500) request.log.error({ err }, 'request failed');
  return sendProblem(reply, p);
}
