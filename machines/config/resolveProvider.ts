import type { ComposedConfig } from './compose.ts';
import { listOf, strOf, type Table } from './layers.ts';

/**
 * A provider's spec with its `base` chain flattened (the base's keys under its own; `args_append` added
 * after the inherited args), or undefined for an unknown name or a cycle. This is a pure function.
 */
export function resolveProvider(
  c: Pick<ComposedConfig, 'providers'>,
  name: string,
  seen = new Set<string>(),
): Table | undefined {
  const spec = c.providers[name];
  if (!spec || seen.has(name)) return undefined;
  seen.add(name);
  const base = strOf(spec.base);
  const inherited = base ? resolveProvider(c, base, seen) : undefined;
  if (base && !inherited) return undefined;
  const out: Table = { ...(inherited ?? {}), ...spec };
  if (Array.isArray(spec.args_append)) {
    out.args = [...listOf(out.args), ...listOf(spec.args_append)];
    delete out.args_append;
  }
  if (inherited?.env || spec.env) out.env = { ...(inherited?.env as Table), ...(spec.env as Table) };
  return out;
}

/** True when any key of the provider was set by a layer above the builtin defaults. Pure. */
export const isCityLevelProvider = (c: Pick<ComposedConfig, 'sources'>, name: string): boolean =>
  Object.entries(c.sources).some(([k, s]) => k.startsWith(`providers.${name}.`) && s.origin !== 'default');
