import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './gc.ts';

/** The parts of a compose service the tests read. */
export interface ComposeService {
  image?: string;
  build?: string | { context?: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] };
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** The repository's docker-compose.yml, parsed. */
export function readCompose(): ComposeFile {
  return parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as ComposeFile;
}

/** The repository's Dockerfile, as instruction lines (continuations joined, comments dropped). */
export function readDockerfile(): string[] {
  return readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** A service's environment as compose gives it when none of its `${VAR:-default}` variables is set. */
export function interpolated(env: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, v.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*:-([^}]*)\}/g, '$1')]),
  );
}
