/** Paths in packs and fragments: which sources are fetched rather than read, and agent paths made city-relative. */
import { isAbsolute, join, relative } from 'node:path';
import { tablesOf, type Table } from '../../machines/config/layers.ts';

/**
 * True for a URL or a git source (`git@…`, `github.com/…`, `host/repo//sub#ref`), which is fetched rather
 * than read; `//path` (the city's own directory) is local. Pure.
 */
export const isRemoteSource = (src: string): boolean =>
  /^[a-z][a-z0-9+.-]*:\/\//i.test(src) ||
  src.startsWith('git@') ||
  src.startsWith('github.com/') ||
  (!src.startsWith('//') && src.includes('//'));

const AGENT_PATHS = ['prompt_template', 'session_setup_script', 'overlay_dir', 'namepool'] as const;

/** The agents' relative paths of a fragment or pack in `fragDir`, made relative to the city directory. */
export function rebaseAgentPaths(doc: Table, fragDir: string, cityDir: string): void {
  for (const agent of tablesOf(doc.agent)) {
    for (const key of AGENT_PATHS) {
      const p = agent[key];
      if (typeof p !== 'string' || p === '' || isAbsolute(p) || p.startsWith('//')) continue;
      agent[key] = relative(cityDir, join(fragDir, p));
    }
  }
}
