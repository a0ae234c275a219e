/**
 * Who a command run inside a session is, read from the session environment (upstream's derivations).
 * Pure functions of the environment.
 */

const get = (env: NodeJS.ProcessEnv, k: string): string => env[k]?.trim() ?? '';

/** The mail identity: `GC_ALIAS` → `GC_SESSION_ID` → `GC_AGENT` → `human`. */
export const mailIdentity = (env: NodeJS.ProcessEnv): string =>
  get(env, 'GC_ALIAS') || get(env, 'GC_SESSION_ID') || get(env, 'GC_AGENT') || 'human';

/** The hook/prime agent: positional; else the template inside a session; else `GC_ALIAS` → `GC_AGENT`. */
export function hookAgent(env: NodeJS.ProcessEnv, positional?: string): string {
  if (positional?.trim()) return positional.trim();
  if ((get(env, 'GC_SESSION_NAME') || get(env, 'GC_SESSION_ID')) && get(env, 'GC_TEMPLATE')) {
    return get(env, 'GC_TEMPLATE');
  }
  return get(env, 'GC_ALIAS') || get(env, 'GC_AGENT');
}

/** The identities the default work query tries, in order, without blanks or repeats. */
export const workIdentities = (env: NodeJS.ProcessEnv): string[] => [
  ...new Set([get(env, 'GC_SESSION_ID'), get(env, 'GC_SESSION_NAME'), get(env, 'GC_ALIAS')].filter((s) => s)),
];

/** The current session (display name), or undefined outside one. */
export function currentSession(env: NodeJS.ProcessEnv): string | undefined {
  const who = mailIdentity(env);
  return who === 'human' ? undefined : who;
}
