/**
 * `include = [...]` fragments of city.toml: TOML files merged into the root document, in order, before
 * packs are expanded and patches applied. As upstream: agents, rigs, services and named sessions are
 * appended (an identity defined twice is an error, not a silent replacement); providers and the workspace
 * merge key by key (the fragment wins); `[packs.*]` merge by name; patches accumulate; the other sections
 * are replaced whole by a fragment that defines them (`[session_sleep]` and `[agent_defaults]` key by key).
 * A fragment may not include further. Everything here is pure.
 */
import { agentIdentity, CITY_FILE, tableOf, tablesOf, textOf, type Table } from './layers.ts';
import type { ConfigProblem } from './problems.ts';
import { KNOWN_TOP_LEVEL } from './validateConfig.ts';
import { didYouMean } from './problems.ts';

/** One fragment as read: its file (relative to the city directory) and its parsed document. */
export interface FragmentLayer {
  file: string;
  doc: Table;
}

/** Arrays of tables a fragment appends to the root's. */
const APPENDED = ['agent', 'rigs', 'service', 'named_session'] as const;
/** Tables merged key by key, the fragment's keys winning. */
const KEYWISE = ['session_sleep', 'agent_defaults'] as const;

/** The identity of an entry of an appended array, for the duplicate check. */
const identityOf = (kind: (typeof APPENDED)[number], t: Table): string | undefined =>
  kind === 'agent' ? agentIdentity(t) : kind === 'named_session' ? undefined : textOf(t.name) || undefined;

const KIND_NOUN: Record<(typeof APPENDED)[number], string> = {
  agent: 'agent',
  rigs: 'rig',
  service: 'service',
  named_session: 'named session',
};

/**
 * The root document with its fragments merged in, and the problems of the merge (a name defined in two
 * files, a fragment that includes, unknown keys of a fragment). `include` keeps the root's own list.
 */
export function mergeFragments(
  root: Table,
  fragments: FragmentLayer[],
): { doc: Table; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const doc: Table = { ...root };
  // Where each identity was first defined, per kind: the root's own duplicates are validation's to report.
  const definedIn = new Map<string, string>();
  for (const kind of APPENDED)
    for (const t of tablesOf(root[kind])) {
      const id = identityOf(kind, t);
      if (id) definedIn.set(`${kind}:${id}`, CITY_FILE);
    }

  for (const { file, doc: frag } of fragments) {
    for (const key of Object.keys(frag)) {
      if (!KNOWN_TOP_LEVEL.includes(key))
        problems.push({
          severity: 'warning',
          file,
          field: key,
          message: `unknown field "${key}"${didYouMean(key, KNOWN_TOP_LEVEL)}`,
        });
    }
    if (frag.include !== undefined)
      problems.push({
        severity: 'error',
        file,
        field: 'include',
        message: 'includes are not allowed in fragments (no recursive includes)',
      });
    for (const kind of APPENDED) {
      const added = tablesOf(frag[kind]);
      if (added.length === 0) continue;
      added.forEach((t, i) => {
        const id = identityOf(kind, t);
        if (!id) return;
        const first = definedIn.get(`${kind}:${id}`);
        if (first !== undefined)
          problems.push({
            severity: 'error',
            file,
            field: `${kind}[${i}]`,
            message: `${KIND_NOUN[kind]} ${id} is already defined in ${first}`,
          });
        else definedIn.set(`${kind}:${id}`, file);
      });
      doc[kind] = [...tablesOf(doc[kind]), ...added];
    }
    if (frag.workspace !== undefined)
      doc.workspace = { ...tableOf(doc.workspace), ...tableOf(frag.workspace) };
    if (frag.providers !== undefined) {
      const providers: Table = { ...tableOf(doc.providers) };
      for (const [name, spec] of Object.entries(tableOf(frag.providers)))
        providers[name] = { ...tableOf(providers[name]), ...tableOf(spec) };
      doc.providers = providers;
    }
    if (frag.packs !== undefined) doc.packs = { ...tableOf(doc.packs), ...tableOf(frag.packs) };
    if (frag.patches !== undefined) {
      const base = tableOf(doc.patches);
      const add = tableOf(frag.patches);
      const patches: Table = { ...base };
      for (const kind of ['agent', 'rigs', 'providers'])
        if (add[kind] !== undefined) patches[kind] = [...tablesOf(base[kind]), ...tablesOf(add[kind])];
      doc.patches = patches;
    }
    for (const key of KEYWISE)
      if (frag[key] !== undefined) doc[key] = { ...tableOf(doc[key]), ...tableOf(frag[key]) };
    for (const [key, value] of Object.entries(frag)) {
      // Unknown keys were reported above against the fragment's own file; they stay out of the root.
      if (!KNOWN_TOP_LEVEL.includes(key)) continue;
      if (key === 'include' || key === 'agents' || (APPENDED as readonly string[]).includes(key)) continue;
      if (['workspace', 'providers', 'packs', 'patches', ...KEYWISE].includes(key)) continue;
      doc[key] = value;
    }
    // The deprecated `[agents]` alias of `[agent_defaults]`.
    if (frag.agents !== undefined)
      doc.agent_defaults = { ...tableOf(doc.agent_defaults), ...tableOf(frag.agents) };
  }
  return { doc, problems };
}
