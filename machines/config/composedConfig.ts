import type { Source, Table } from './layers.ts';

/**
 * A city's effective configuration in TOML's own keys: what every reader (sessions, agents, the config
 * routes, workspace services) works from, and where each value came from.
 */
export interface ComposedConfig {
  workspace: Table;
  /** `[[agent]]` tables, packs' first (in include order) then the city's; a later identity replaces. */
  agents: Table[];
  /** `[providers.<name>]`, builtins deep-merged under packs' and the city's. */
  providers: Record<string, Table>;
  rigs: Table[];
  /** `[[service]]` tables (packs' then the city's; a later name replaces). */
  services: Table[];
  namedSessions: Table[];
  /** The city file's other top-level tables (`[session]`, `[beads]`, …), as written. */
  rest: Table;
  /** The city's `[patches]`, as written (their effect is already in agents, providers and rigs). */
  patches: { agent: Table[]; rigs: Table[]; providers: Table[] };
  /** Per value: `agents.<identity>.<key>`, `providers.<name>.<key>`, `rigs.<name>.<key>`, `workspace.<key>`. */
  sources: Record<string, Source>;
  /** Patches whose target is in no layer: `patches.<kind>[i]` → the target's name. */
  unmatchedPatches: Array<{ field: string; target: string }>;
}
