/**
 * The layers a city's effective configuration is composed of, lowest first: the supervisor's builtin
 * defaults, the packs the city includes (each a `pack.toml`), the city's own `city.toml`, and last the
 * `[patches]` of city.toml, which override agents, providers and rigs whatever layer defined them (so they
 * survive a pack update). Everything here is plain data parsed from TOML: pure.
 */
import type { ConfigProblem } from './problems.ts';

/** A TOML table as parsed. */
export type Table = Record<string, unknown>;

/** Where a value of the effective config comes from. */
export type OriginKind = 'default' | 'pack' | 'city' | 'patch';

export interface Source {
  origin: OriginKind;
  /** The file, relative to the city directory (`city.toml`, `packs/base/pack.toml`); absent for defaults. */
  file?: string;
  /** The pack's name, for `pack`. */
  pack?: string;
}

/** One pack's layer: its `pack.toml`, read from its directory. */
export interface PackLayer {
  name: string;
  /** The file it was read from, relative to the city directory. */
  file: string;
  doc: Table;
  /** Its directory (absolute): `{{.ConfigDir}}` of its agents and services. */
  dir?: string;
  /** `[global] session_live` of the packs it reaches: appended to the agents in its scope. */
  sessionLive?: string[];
  /** The city's own pack.toml: its agents are the city's whatever their `scope`. */
  cityPack?: boolean;
  /** Problems found while expanding it (the reader reports them). */
  problems?: ConfigProblem[];
}

/** Everything composition reads. */
export interface ConfigLayers {
  /** Builtin provider specs by name (TOML keys: command, args, prompt_mode, …). */
  builtinProviders: Record<string, Table>;
  packs: PackLayer[];
  /** The parsed city.toml, its `include` fragments merged in (fragments.ts). */
  city: Table;
  /** Those fragments, for provenance: their values are credited to their own file. */
  fragments?: Array<{ file: string; doc: Table }>;
  /** The packs each rig includes (`[[rigs]] includes`), in rig then include order. */
  rigPacks?: Array<PackLayer & { rig: string }>;
  /** The city's name (the workspace's name when city.toml declares none). */
  cityName: string;
}

export const CITY_FILE = 'city.toml';

/** A table, or an empty one for anything else. Pure. */
export const tableOf = (v: unknown): Table =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Table) : {};

/** The tables of an array of tables (anything else is skipped). Pure. */
export const tablesOf = (v: unknown): Table[] =>
  Array.isArray(v)
    ? v.filter((x): x is Table => x !== null && typeof x === 'object' && !Array.isArray(x))
    : [];

/** A non-empty string, else undefined. Pure. */
export const strOf = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A scalar's text (`''` for absent; JSON for a table or list, which validation reports). Pure. */
export const textOf = (v: unknown): string =>
  v === undefined || v === null
    ? ''
    : typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint'
        ? String(v)
        : JSON.stringify(v);

/** The items of a list, or none. Pure. */
export const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);

/** An agent's qualified name: `dir/name`, or `name` for a city agent. Pure. */
export const agentIdentity = (t: Table): string =>
  strOf(t.dir) ? `${textOf(t.dir)}/${textOf(t.name)}` : textOf(t.name);
