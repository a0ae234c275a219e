import { BdError, UnsupportedError } from './errors.ts';

/** How a flag takes its value: none (a switch), one, or one per occurrence (repeatable). */
export type FlagKind = 'bool' | 'string' | 'list';

/** A command's flags by long name; `short` is the one-letter form, `aliases` other long names. */
export type FlagSpec = Record<string, { kind: FlagKind; short?: string; aliases?: string[] }>;

export interface Parsed {
  positional: string[];
  flags: Map<string, string | boolean | string[]>;
}

/** bd's persistent flags, accepted by every command. */
export const GLOBAL_FLAGS: FlagSpec = {
  json: { kind: 'bool' },
  actor: { kind: 'string' },
  quiet: { kind: 'bool', short: 'q' },
  verbose: { kind: 'bool', short: 'v' },
  readonly: { kind: 'bool' },
};

const BOOL_VALUES: Record<string, boolean> = { true: true, false: false, '1': true, '0': false };

/**
 * Parses argv the way bd's (cobra's) flags read: `--name value`, `--name=value`, `-x value`, switches with
 * an optional `=true|false`, `--` ends the flags. A flag the spec lacks is an UnsupportedError (exit 2).
 * This is a pure function.
 */
export function parseArgs(
  argv: readonly string[],
  spec: FlagSpec,
  command: string,
  /** Whose command it is, for the message naming it: `bd` or `gc`. */
  tool: 'bd' | 'gc' = 'bd',
): Parsed {
  const all: FlagSpec = { ...GLOBAL_FLAGS, ...spec };
  const byName = new Map<string, string>();
  for (const [name, f] of Object.entries(all)) {
    byName.set(`--${name}`, name);
    if (f.short) byName.set(`-${f.short}`, name);
    for (const a of f.aliases ?? []) byName.set(`--${a}`, name);
  }
  const out: Parsed = { positional: [], flags: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      out.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const key = eq > 0 ? arg.slice(0, eq) : arg;
    const name = byName.get(key);
    if (!name) throw new UnsupportedError(`unsupported flag ${key} for "${tool} ${command}"`);
    const kind = all[name]!.kind;
    if (kind === 'bool') {
      const raw = eq > 0 ? arg.slice(eq + 1) : 'true';
      const value = BOOL_VALUES[raw];
      if (value === undefined) throw new BdError(`invalid value "${raw}" for ${key}`);
      out.flags.set(name, value);
      continue;
    }
    let value: string;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new BdError(`flag needs an argument: ${key}`);
      value = argv[++i]!;
    }
    if (kind === 'list') {
      const prev = out.flags.get(name);
      out.flags.set(name, [...(Array.isArray(prev) ? prev : []), value]);
    } else out.flags.set(name, value);
  }
  return out;
}

/** Typed reads of a parse result. */
export const str = (p: Parsed, name: string): string | undefined => {
  const v = p.flags.get(name);
  return typeof v === 'string' ? v : undefined;
};
export const bool = (p: Parsed, name: string): boolean => p.flags.get(name) === true;
export const list = (p: Parsed, name: string): string[] => {
  const v = p.flags.get(name);
  return Array.isArray(v) ? v : [];
};
/** A repeatable flag whose values may also be comma lists (`-l a,b -l c`). */
export const commaList = (p: Parsed, name: string): string[] =>
  list(p, name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
