import type { EventDraft } from '../../schemas/event.ts';
import type { ExtMsgAdapterRegisterBody, ExtMsgAdapterUnregisterBody } from '../../schemas/extmsgBodies.ts';
import type { ExtmsgAdapterRegisteredPayload } from '../../schemas/extmsgEvents.ts';
import { accept, reject, type EventContext, type Outcome } from './decision.ts';
import { adapterKey, type AdapterState, type ExtmsgModel } from './model.ts';

/** True for an absolute http(s) URL. This is a pure function. */
function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const same = (a: AdapterState, b: AdapterState): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Registers (or re-registers, replacing) the adapter of `(provider, account_id)`: `extmsg.adapter_registered`
 * and the notice `extmsg.adapter_added`. Registering it again unchanged records nothing. A callback URL must
 * be an absolute http(s) URL (422). This is a pure function.
 */
export function decideRegisterAdapter(
  model: ExtmsgModel,
  body: ExtMsgAdapterRegisterBody,
  ctx: EventContext,
): Outcome<AdapterState> {
  const callback = body.callback_url?.trim() ?? '';
  if (callback !== '' && !isHttpUrl(callback))
    return reject('unprocessable', 'callback_url must be an absolute http or https URL', 'body.callback_url');
  const adapter: ExtmsgAdapterRegisteredPayload = {
    provider: body.provider,
    account_id: body.account_id,
    name: body.name?.trim() || `${body.provider}/${body.account_id}`,
    callback_url: callback.replace(/\/+$/, ''),
    ...(body.capabilities ? { capabilities: body.capabilities } : {}),
  };
  const previous = model.adapters.get(adapterKey(body.provider, body.account_id));
  if (previous && same(previous, adapter)) return accept(previous);
  const subject = `${body.provider}/${body.account_id}`;
  const records: EventDraft[] = [
    { type: 'extmsg.adapter_registered', actor: ctx.actor, subject, ts: ctx.now, payload: adapter },
    {
      type: 'extmsg.adapter_added',
      actor: ctx.actor,
      subject,
      ts: ctx.now,
      payload: { provider: body.provider, account_id: body.account_id },
    },
  ];
  return accept(adapter, records);
}

/**
 * Removes the adapter of `(provider, account_id)` (`extmsg.adapter_removed`). Its pending deliveries stay
 * queued: they go out once an adapter for it is registered again, or die at their retry limit.
 * This is a pure function.
 */
export function decideUnregisterAdapter(
  model: ExtmsgModel,
  body: ExtMsgAdapterUnregisterBody,
  ctx: EventContext,
): Outcome<AdapterState> {
  const adapter = model.adapters.get(adapterKey(body.provider, body.account_id));
  if (!adapter) return reject('not_found', `adapter ${body.provider}/${body.account_id} not registered`);
  return accept(adapter, [
    {
      type: 'extmsg.adapter_removed',
      actor: ctx.actor,
      subject: `${body.provider}/${body.account_id}`,
      ts: ctx.now,
      payload: { provider: body.provider, account_id: body.account_id },
    },
  ]);
}
