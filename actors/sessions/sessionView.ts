/**
 * The session as the API shows it (upstream's SessionResponse): the stored record joined with what the
 * runtime was last seen doing. Display rules as upstream: a stored `active` whose runtime is not running
 * reads `asleep` (the reconciler heals the record on its next tick); `drained` reads `asleep`; metadata
 * shows only `mc_*` keys and `template_overrides`.
 */
import type { SeenRuntime } from '../../machines/sessions/plan.ts';
import { displayName } from '../../machines/sessions/sessionChange.ts';
import { K, type SessionRecord } from '../../machines/sessions/sessionRecord.ts';
import type { SessionView } from './sessionApi.ts';

export function sessionView(s: SessionRecord, rt: SeenRuntime | undefined, attached = false): SessionView {
  const running =
    !s.closed && rt?.running === true && (rt.token === undefined || rt.token === s.instanceToken);
  let state: string = s.state;
  if (state === 'drained' || (state === 'active' && !running)) state = 'asleep';
  const view: SessionView = {
    id: s.id,
    template: s.template,
    title: s.title,
    provider: s.provider,
    session_name: s.sessionName,
    state,
    created_at: s.createdAt,
    running,
    attached: running && attached,
    kind: s.meta['mc_session_kind'] || (s.meta['gc.kind'] ?? 'agent'),
    display_name: displayName(s),
    submission_capabilities: { supports_follow_up: false, supports_interrupt_now: true },
  };
  if (s.alias) view.alias = s.alias;
  const reason = s.state === 'quarantined' ? 'quarantine' : s.meta[K.sleepReason];
  if (reason) view.reason = reason;
  if (rt && rt.lastActivity > 0) view.last_active = new Date(rt.lastActivity).toISOString();
  if (s.meta[K.lastNudgeAt]) view.last_nudge_delivered_at = s.meta[K.lastNudgeAt];
  const shown = Object.entries(s.meta).filter(([k]) => k.startsWith('mc_') || k === 'template_overrides');
  if (shown.length > 0) view.metadata = Object.fromEntries(shown);
  const mode = s.meta[K.permissionMode];
  if (mode) view.options = { permission_mode: mode };
  return view;
}
