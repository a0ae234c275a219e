/**
 * `[session] provider`: the runtime every session of the city runs on. The same check answers at city
 * create (422) and in /config/validate (an error), so a file is refused or accepted the same way in both
 * places. Upstream selects tmux for any value it does not know; a runtime upstream has and this supervisor
 * does not is refused here instead of silently running elsewhere. Pure.
 */
import { strOf, tableOf, type Table } from './layers.ts';
import type { ConfigProblem } from './problems.ts';

/** The runtimes this supervisor runs (`fake` is the tests' in-memory double, as upstream's). */
export const SESSION_RUNTIMES = ['tmux', 'subprocess', 'acp', 'fake'] as const;
export type SessionRuntime = (typeof SESSION_RUNTIMES)[number] | `exec:${string}`;

/** Upstream runtimes this supervisor does not have. */
const UPSTREAM_ONLY = ['k8s', 'hybrid', 'fail'];

/** `exec:<script>`: a user's script runs the sessions (upstream's exec protocol). */
const isExec = (p: string): p is `exec:${string}` => p.startsWith('exec:') && p.length > 'exec:'.length;

/** The runtime a `[session]` table asks for: undefined when it names none (the supervisor's default). */
export function sessionRuntimeOf(session: unknown): SessionRuntime | undefined {
  const p = strOf(tableOf(session).provider) ?? '';
  if (isExec(p)) return p;
  return (SESSION_RUNTIMES as readonly string[]).includes(p) ? (p as SessionRuntime) : undefined;
}

/** The problem of a city document's `[session] provider`, if any. Pure. */
export function sessionProviderProblem(doc: Table): ConfigProblem | undefined {
  const value = tableOf(doc.session).provider;
  if (value === undefined || value === '') return undefined;
  const at = { file: 'city.toml', field: 'session.provider' };
  const supported = `supported: ${SESSION_RUNTIMES.filter((r) => r !== 'fake').join(', ')}, exec:<script>`;
  if (typeof value !== 'string') return { severity: 'error', ...at, message: 'expected a string' };
  if (isExec(value)) return undefined;
  if (UPSTREAM_ONLY.includes(value) || value.startsWith('exec:'))
    return {
      severity: 'error',
      ...at,
      message: `session provider ${JSON.stringify(value)} is not available in this supervisor (${supported})`,
    };
  if (!(SESSION_RUNTIMES as readonly string[]).includes(value))
    return {
      severity: 'warning',
      ...at,
      message: `unknown session provider ${JSON.stringify(value)}: tmux is used (${supported})`,
    };
  return undefined;
}
