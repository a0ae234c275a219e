import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where upstream's OpenAPI document is: `shared/reference/upstream-openapi.json` beside the checkout or
 * beside any folder above it (the main checkout and its worktrees sit at different depths).
 * @throws Error naming the places looked in when there is none.
 */
export function upstreamDocumentPath(): string {
  const tried: string[] = [];
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'reference', 'upstream-openapi.json');
    if (existsSync(candidate)) return candidate;
    tried.push(candidate);
    if (dirname(dir) === dir)
      throw new Error(`upstream's OpenAPI document not found (tried ${tried.join(', ')})`);
  }
}

/** Upstream's OpenAPI document, parsed. */
export function upstreamDocument<T = Record<string, unknown>>(): T {
  return JSON.parse(readFileSync(upstreamDocumentPath(), 'utf8')) as T;
}
