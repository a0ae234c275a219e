import type { Table } from '../../machines/config/layers.ts';
import { BUILTIN_PROVIDERS } from './providers.ts';
import { builtinPresets, mockAgentPath } from '../sessions/index.ts';

let specs: Record<string, Table> | undefined;

/**
 * The builtin providers as `[providers.<name>]` tables (the lowest layer of every city's config): upstream's
 * list in its order plus our `mock`, each with what its session preset knows (command, prompt mode, ready
 * delay). Made once: the mock agent's path is looked up on the disk.
 */
export function builtinProviderSpecs(): Record<string, Table> {
  if (specs) return specs;
  const presets = builtinPresets();
  const out: Record<string, Table> = {};
  for (const [name, { binary, displayName }] of Object.entries(BUILTIN_PROVIDERS)) {
    const preset = presets[name];
    const spec: Table = { display_name: displayName, command: binary };
    if (name === 'mock') spec.args = [mockAgentPath()];
    if (preset?.promptMode) spec.prompt_mode = preset.promptMode;
    if (preset?.promptFlag) spec.prompt_flag = preset.promptFlag;
    if (preset?.readyDelayMs !== undefined) spec.ready_delay_ms = preset.readyDelayMs;
    out[name] = spec;
  }
  specs = out;
  return out;
}
