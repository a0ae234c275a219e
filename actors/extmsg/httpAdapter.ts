import type { ConversationRef, PublishReceipt } from '../../schemas/extmsg.ts';
import type { PublishRequest } from '../../schemas/extmsgEvents.ts';

/** What one publish attempt came to. */
export type PublishOutcome =
  | { delivered: true; receipt: PublishReceipt }
  | { delivered: false; kind: string; error: string; retryAfterNs: number };

/** Sends one publish request to an adapter; never throws (a failure is an outcome). */
export type PublishFn = (
  callbackUrl: string,
  request: PublishRequest,
  signal: AbortSignal,
) => Promise<PublishOutcome>;

const failed = (kind: string, error: string, retryAfterNs = 0): PublishOutcome => ({
  delivered: false,
  kind,
  error,
  retryAfterNs,
});

/** Upstream's mapping of an adapter's HTTP status to a failure kind. This is a pure function. */
export function failureKindOf(status: number): string {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'transient';
  return 'permanent';
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function stringMap(v: unknown): Record<string, string> {
  if (!isObject(v)) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function isConversation(v: unknown): v is ConversationRef {
  if (!isObject(v)) return false;
  const keys = ['scope_id', 'provider', 'account_id', 'conversation_id'];
  return (
    keys.every((k) => typeof v[k] === 'string') &&
    ['dm', 'room', 'thread'].includes(v.kind as string) &&
    (v.parent_conversation_id === undefined || typeof v.parent_conversation_id === 'string') &&
    Object.keys(v).every((k) => [...keys, 'kind', 'parent_conversation_id'].includes(k))
  );
}

/**
 * An adapter's receipt, read leniently and made whole (PascalCase fields as upstream; a missing or odd
 * field takes its zero value, the conversation defaults to the request's). Undefined when the body is no
 * receipt at all. This is a pure function.
 */
export function receiptOf(body: unknown, request: PublishRequest): PublishReceipt | undefined {
  if (!isObject(body) || typeof body.Delivered !== 'boolean') return undefined;
  const retry = Number(body.RetryAfter);
  return {
    MessageID: typeof body.MessageID === 'string' ? body.MessageID : '',
    Conversation: isConversation(body.Conversation) ? body.Conversation : request.Conversation,
    Delivered: body.Delivered,
    FailureKind: typeof body.FailureKind === 'string' ? body.FailureKind : '',
    RetryAfter: Number.isSafeInteger(retry) && retry > 0 ? retry : 0,
    Metadata: stringMap(body.Metadata),
  };
}

/**
 * Upstream's HTTP adapter protocol: `POST <callback_url>/publish` with the PascalCase PublishRequest; a 2xx
 * answers a PublishReceipt. A network error, an unreadable 2xx body or a 5xx is `transient`; 401/403
 * `auth`; 404 `not_found`; 429 `rate_limited` (its Retry-After seconds honoured); another 4xx `permanent`.
 * Effects: one HTTP request (keep-alive).
 */
export const publishOverHttp: PublishFn = async (callbackUrl, request, signal) => {
  let res: Response;
  try {
    res = await fetch(`${callbackUrl}/publish`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal,
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return failed('transient', `publish to ${callbackUrl}: ${cause ?? (err as Error).message}`);
  }
  let text = '';
  try {
    text = await res.text();
  } catch (err) {
    return failed('transient', `publish to ${callbackUrl}: reading the answer: ${(err as Error).message}`);
  }
  if (!res.ok) {
    const seconds = Number(res.headers.get('retry-after'));
    const hint = Number.isFinite(seconds) && seconds > 0 ? seconds * 1e9 : 0;
    return failed(failureKindOf(res.status), `publish to ${callbackUrl}: HTTP ${res.status}`, hint);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return failed('transient', `publish to ${callbackUrl}: the answer is not JSON`);
  }
  const receipt = receiptOf(body, request);
  if (!receipt) return failed('transient', `publish to ${callbackUrl}: the answer is not a receipt`);
  if (receipt.Delivered) return { delivered: true, receipt };
  return failed(
    receipt.FailureKind || 'transient',
    `publish to ${callbackUrl}: not delivered`,
    receipt.RetryAfter,
  );
};
