import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'smol-toml';

/** What the supervisor reads from a city's `city.toml` (`[workspace]` and `[[agent]]` tables). */
export interface CityConfig {
  provider?: string;
  startCommand?: string;
  bootstrapProfile?: string;
  agents: Array<{ name: string; provider?: string; start_command?: string }>;
}

export const cityTomlPath = (dir: string): string => join(dir, 'city.toml');

/** The `city.toml` a new city is scaffolded with. Pure. */
export function renderCityToml(name: string, cfg: Omit<CityConfig, 'agents'>): string {
  const workspace: Record<string, string> = { name };
  if (cfg.provider) workspace.provider = cfg.provider;
  if (cfg.startCommand) workspace.start_command = cfg.startCommand;
  if (cfg.bootstrapProfile) workspace.bootstrap_profile = cfg.bootstrapProfile;
  return `# Gas City: created by the supervisor (POST /v0/city).\n${stringify({ workspace })}\n`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Reads and parses a city's `city.toml`. Throws when the file is missing or not valid TOML, with a
 * message fit for a `request.failed` event.
 */
export async function readCityConfig(dir: string): Promise<CityConfig> {
  const file = cityTomlPath(dir);
  let doc: Record<string, unknown>;
  try {
    doc = parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`loading ${file}: ${(err as Error).message}`, { cause: err });
  }
  const ws = (doc.workspace ?? {}) as Record<string, unknown>;
  const agents = (Array.isArray(doc.agent) ? doc.agent : []).map((a) => {
    const t = (a ?? {}) as Record<string, unknown>;
    return {
      name: typeof t.name === 'string' ? t.name : '',
      provider: str(t.provider),
      start_command: str(t.start_command),
    };
  });
  return {
    provider: str(ws.provider),
    startCommand: str(ws.start_command),
    bootstrapProfile: str(ws.bootstrap_profile),
    agents,
  };
}
