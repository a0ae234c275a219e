import type { AgentApi } from '../agents/index.ts';
import { NotFoundError, UnavailableError } from '../runtime/errors.ts';

/** What sling needs of the agents service: its templates' qualified names, when it can list them. */
interface WithTemplates {
  templates(): { qualified: string; defaultSlingFormula?: string }[];
}

const hasTemplates = (s: unknown): s is WithTemplates =>
  typeof (s as Partial<WithTemplates> | undefined)?.templates === 'function';

/**
 * The agent or pool `target` names, as upstream resolves it: in a rig context a bare name is first tried
 * as `<rig>/<target>`; then the qualified name of an agent or pool (a template), or a pool instance.
 * Resolves undefined when there is none. Effects: reads the agents service.
 * @throws UnavailableError when the city has no agents service.
 */
export async function resolveSlingTarget(
  agents: AgentApi | undefined,
  target: string,
  rigContext: string | undefined,
): Promise<string | undefined> {
  if (!agents) throw new UnavailableError('agents service is not started for this city');
  const candidates = rigContext && !target.includes('/') ? [`${rigContext}/${target}`, target] : [target];
  const templates = hasTemplates(agents) ? new Set(agents.templates().map((t) => t.qualified)) : undefined;
  for (const name of candidates) {
    if (templates?.has(name)) return name;
    try {
      const view = await agents.get(name);
      return view.name === name ? name : (view.pool ?? view.name);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  return undefined;
}

/**
 * The `default_sling_formula` of the template `target` names (a pool instance counts as its pool), tried
 * as `<rig>/<target>` first in a rig context; undefined when it has none or is unknown. Effects: reads
 * the agents service's templates.
 */
export function defaultSlingFormula(
  agents: AgentApi | undefined,
  target: string,
  rigContext: string | undefined,
): string | undefined {
  if (!hasTemplates(agents)) return undefined;
  const templates = agents.templates();
  const candidates = rigContext && !target.includes('/') ? [`${rigContext}/${target}`, target] : [target];
  for (const name of candidates) {
    const found =
      templates.find((t) => t.qualified === name) ??
      templates.find(
        (t) => name.startsWith(`${t.qualified}-`) && /^\d+$/.test(name.slice(t.qualified.length + 1)),
      );
    if (found) return found.defaultSlingFormula;
  }
  return undefined;
}
