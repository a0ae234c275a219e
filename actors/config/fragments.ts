/**
 * Reads the `include = [...]` fragments of a city document from disk. A path is relative to the city
 * directory (`//x` also means the city root, as upstream writes it); a fragment agent's own paths
 * (`prompt_template`, `session_setup_script`, `overlay_dir`, `namepool`) are relative to the fragment's
 * directory and are rewritten relative to the city's. A missing or broken fragment is a problem naming the
 * field, not a failure. Remote fragments (URLs, git sources) are not fetched: a warning says so.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse } from 'smol-toml';
import type { FragmentLayer } from '../../machines/config/fragments.ts';
import { CITY_FILE, type Table } from '../../machines/config/layers.ts';
import type { ConfigProblem } from '../../machines/config/problems.ts';
import { tomlProblem } from './tomlProblem.ts';
import { isRemoteSource, rebaseAgentPaths } from './packPaths.ts';

/** Where include `path` points, from the city directory. */
function fragmentPath(cityDir: string, path: string): string {
  if (path.startsWith('//')) return join(cityDir, path.slice(2));
  return isAbsolute(path) ? path : resolve(cityDir, path);
}

/** The fragments `doc.include` names, in order, and the problems of reading them. Effects: reads files. */
export async function readFragments(
  cityDir: string,
  doc: Table,
): Promise<{ fragments: FragmentLayer[]; problems: ConfigProblem[] }> {
  const fragments: FragmentLayer[] = [];
  const problems: ConfigProblem[] = [];
  const problem = (severity: ConfigProblem['severity'], field: string, message: string, file = CITY_FILE) =>
    problems.push({ severity, file, field, message });
  if (doc.include === undefined) return { fragments, problems };
  if (!Array.isArray(doc.include)) {
    problem('error', 'include', 'expected an array of paths');
    return { fragments, problems };
  }
  for (const [i, inc] of doc.include.entries()) {
    const field = `include[${i}]`;
    if (typeof inc !== 'string' || inc === '') {
      problem('error', field, 'expected a path');
      continue;
    }
    if (isRemoteSource(inc) && !inc.startsWith('//')) {
      problem('warning', field, 'remote fragments are not fetched');
      continue;
    }
    const path = fragmentPath(cityDir, inc);
    const file = relative(cityDir, path) || inc;
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      problem('error', field, `no fragment at ${file}`);
      continue;
    }
    let parsed: Table;
    try {
      parsed = parse(text);
    } catch (err) {
      problems.push(tomlProblem(err, file));
      continue;
    }
    rebaseAgentPaths(parsed, dirname(path), cityDir);
    fragments.push({ file, doc: parsed });
  }
  return { fragments, problems };
}
