import type { BdClient } from './client.ts';
import type { Parsed } from './args.ts';

/** What every bd command gets: the API client, the parsed args, and where to write. */
export interface BdContext {
  client: BdClient;
  args: Parsed;
  json: boolean;
  /** bd's actor: `--actor` → `BEADS_ACTOR` → `BD_ACTOR` → `$USER` → `unknown`. */
  actor: string;
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  /** A per-item failure inside a multi-ID command: a plain stderr line, the command goes on. */
  warn(text: string): void;
}

/** bd prints JSON with two-space indentation. */
export const jsonText = (value: unknown): string => JSON.stringify(value, null, 2);
