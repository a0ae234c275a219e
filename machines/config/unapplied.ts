/**
 * Keys this supervisor reads but does not act on: each one an agent sets is a /config/validate warning
 * naming the file and key, so nothing a city asks for is dropped silently. docs/compatibility.md lists
 * them. Pure.
 */
import { agentIdentity, CITY_FILE, tableOf } from './layers.ts';
import type { ComposedConfig } from './composedConfig.ts';
import type { ConfigProblem } from './problems.ts';

/** Agent keys that change what runs (or how the config composes). */
export const APPLIED_AGENT_KEYS = new Set([
  'name',
  'dir',
  'scope',
  'description',
  'provider',
  'start_command',
  'suspended',
  'min_active_sessions',
  'max_active_sessions',
  'scale_check',
  'depends_on',
  'fallback',
  // Applied where sessions start (actors/sessions/agentStart.ts).
  'prompt_template',
  'work_dir',
  'nudge',
  'prompt_mode',
  'prompt_flag',
  'inject_fragments',
  'pre_start',
  'overlay_dir',
  // Read when the config is (actors/config/effectiveConfig.ts): the pool instances' names.
  'namepool',
  // Applied by POST /sling (actors/sling/sling.ts).
  'default_sling_formula',
  // Applied where the session's template resolves (actors/sessions/templates.ts): its transport.
  'session',
  // Applied by the session reconciler (actors/sessions/upCommands.ts, machines/sessions/plan.ts).
  'session_setup',
  'session_setup_script',
  'session_live',
  'wake_mode',
  'idle_timeout',
  'env',
  // Applied where a session starts (actors/sessions/agentStart.ts): per-provider overlay slots.
  'install_agent_hooks',
  // Applied where a session starts (actors/sessions/templates.ts sessionPreset): over the provider's.
  'ready_prompt_prefix',
  'ready_delay_ms',
  // Run by `gc hook` (cli/agent/hook.ts), read from GET /agent/{name}?extras=true.
  'work_query',
]);

/** Agent keys upstream has that this supervisor does not apply (yet), each with what happens instead. */
export const UNAPPLIED_AGENT_KEYS: Record<string, string> = {
  sleep_after_idle: 'sessions never sleep',
  drain_timeout: 'the city-wide drain timeout applies',
  on_boot: 'not run',
  on_death: 'not run',
  sling_query: 'the built-in routing is used',
  option_defaults: 'not passed',
  args: "the provider's arguments are used",
  process_names: 'not checked',
  emits_permission_warning: 'not handled',
  resume_command: "the provider's resume is used",
  hooks_installed: 'ignored',
  inject_assigned_skills: 'ignored',
  attach: 'ignored',
  skills: 'deprecated upstream, ignored',
  mcp: 'deprecated upstream, ignored',
};

/** One warning per unapplied key an agent sets, in the file that set it. */
export function unappliedProblems(c: ComposedConfig): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const agent of c.agents) {
    const id = agentIdentity(agent);
    for (const key of Object.keys(agent)) {
      if (APPLIED_AGENT_KEYS.has(key)) continue;
      const effect = UNAPPLIED_AGENT_KEYS[key];
      if (effect === undefined) continue;
      out.push({
        severity: 'warning',
        file: c.sources[`agents.${id}.${key}`]?.file ?? CITY_FILE,
        field: `agent (${id}).${key}`,
        message: `read but not applied: ${effect}`,
      });
    }
  }
  const session = tableOf(c.rest.session);
  for (const key of SESSION_KEYS_UNAPPLIED)
    if (session[key] !== undefined)
      out.push({
        severity: 'warning',
        file: c.sources[`session.${key}`]?.file ?? CITY_FILE,
        field: `session.${key}`,
        message: 'read but not applied',
      });
  return out;
}

/**
 * Upstream `[session]` keys that are not this supervisor's thresholds (actors/sessions reads the rest;
 * `setup_timeout` limits each pre_start, session_setup and session_live command: actors/sessions/agentStart.ts).
 */
const SESSION_KEYS_UNAPPLIED = [
  'socket',
  'nudge_ready_timeout',
  'nudge_retry_interval',
  'nudge_lock_timeout',
  'debounce_ms',
  'display_ms',
  'k8s',
];
