import { PROBLEM_TYPE } from './problem.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Document {
  components?: { headers?: Record<string, unknown> };
  paths?: Record<string, Record<string, { responses?: Record<string, Record<string, unknown>> }>>;
}

const REQUEST_ID_HEADER = {
  description: "Identifies this request in the supervisor's log output (16 lowercase hex characters).",
  schema: { type: 'string' },
};

const ERROR_RESPONSE = {
  description: 'Error: a Problem Details body (RFC 9457).',
  headers: { 'X-GC-Request-Id': { $ref: '#/components/headers/X-GC-Request-Id' } },
  content: { [PROBLEM_TYPE]: { schema: { $ref: '#/components/schemas/ErrorModel' } } },
};

/**
 * What every operation answers besides its own responses, added to the generated OpenAPI document in
 * one place (as upstream declares it): a `default` response whose body is the ErrorModel component (a
 * shared schema the app registers), and the `X-GC-Request-Id` header on every response. Mutates and
 * returns `document`.
 */
export function withProblemResponses<T extends object>(document: T): T {
  const doc = document as Document;
  doc.components ??= {};
  doc.components.headers = { ...doc.components.headers, 'X-GC-Request-Id': REQUEST_ID_HEADER };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const responses = (operation.responses ??= {});
      for (const response of Object.values(responses)) {
        response.headers = {
          ...(response.headers as Record<string, unknown> | undefined),
          'X-GC-Request-Id': { $ref: '#/components/headers/X-GC-Request-Id' },
        };
      }
      responses.default ??= structuredClone(ERROR_RESPONSE);
    }
  }
  return document;
}
