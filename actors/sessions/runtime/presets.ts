/**
 * The builtin agent CLI presets, as data: how each CLI is started, when it is ready, how a conversation is
 * named and resumed. `mock` runs the repository's own deterministic agent (bin/gc-mock-agent.mjs); the others
 * carry upstream's facts for claude, codex, gemini and opencode (only what upstream states; absent fields are unknown).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import type { ProviderPreset } from '../../../schemas/cityToml.ts';

export type { ProviderPreset };

/** The mock ACP agent's path (bin/gc-mock-acp-agent.mjs), found as mockAgentPath finds its sibling. */
export function mockAcpAgentPath(): string {
  return mockAgentPath().replace(/gc-mock-agent\.mjs$/, 'gc-mock-acp-agent.mjs');
}

/** The shell command that runs the mock ACP agent with `args`. */
export function mockAcpAgentCommand(...args: string[]): string {
  return [process.execPath, mockAcpAgentPath(), ...args].map(shellQuote).join(' ');
}

/**
 * The mock agent's path, from the source tree (run through tsx) and from dist/ after a build alike: bin/ is
 * not compiled, so it is one folder further up from dist/actors/sessions/runtime than from the source.
 */
export function mockAgentPath(): string {
  const candidates = ['../../../bin/gc-mock-agent.mjs', '../../../../bin/gc-mock-agent.mjs'].map((rel) =>
    fileURLToPath(new URL(rel, import.meta.url)),
  );
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`gc-mock-agent.mjs not found (looked at ${candidates.join(', ')})`);
  return found;
}

/** Quotes a word for `sh -c` so it reaches the program as it is. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The shell command that runs the mock agent with `args`, by the Node running this process. */
export function mockAgentCommand(...args: string[]): string {
  return [process.execPath, mockAgentPath(), ...args].map(shellQuote).join(' ');
}

let presets: Readonly<Record<string, ProviderPreset>> | undefined;

/** The builtin presets (made once: the mock agent's path is looked up on the disk). */
export function builtinPresets(): Readonly<Record<string, ProviderPreset>> {
  presets ??= makePresets();
  return presets;
}

function makePresets(): Record<string, ProviderPreset> {
  return {
    mock: {
      name: 'mock',
      command: `node ${shellQuote(mockAgentPath())}`,
      promptMode: 'arg',
      readyPromptPrefix: '❯',
      processNames: ['node'],
      sessionIdFlag: '--session-id',
      resumeFlag: '--resume',
      resumeStyle: 'flag',
      supportsAcp: true,
      acpCommand: `node ${shellQuote(mockAcpAgentPath())}`,
    },
    claude: {
      name: 'claude',
      command: 'claude',
      promptMode: 'arg',
      readyPromptPrefix: '❯ ',
      readyDelayMs: 10_000,
      processNames: ['node', 'claude'],
      sessionIdFlag: '--session-id',
      resumeFlag: '--resume',
      resumeStyle: 'flag',
      emitsPermissionWarning: true,
      supportsAcp: true,
      // Claude Code speaks ACP through its adapter (npm @zed-industries/claude-code-acp).
      acpCommand: 'claude-code-acp',
      supportsHooks: true,
      settingsFlag: '--settings',
      instructionsFile: 'CLAUDE.md',
      printArgs: ['-p'],
    },
    codex: {
      name: 'codex',
      command: 'codex',
      readyDelayMs: 3_000,
      processNames: ['codex'],
      printArgs: ['exec'],
    },
    // Upstream's other ACP-speaking builtin; its ACP server is the `acp` subcommand.
    opencode: {
      name: 'opencode',
      command: 'opencode',
      promptMode: 'none',
      readyDelayMs: 8_000,
      processNames: ['opencode', 'node', 'bun'],
      supportsAcp: true,
      acpCommand: 'opencode acp',
      supportsHooks: true,
      instructionsFile: 'AGENTS.md',
    },
    gemini: {
      name: 'gemini',
      command: 'gemini',
      readyPromptPrefix: '> ',
      readyDelayMs: 5_000,
    },
  };
}
