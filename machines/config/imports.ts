/**
 * V2 pack imports (`[imports.<binding>]`, `[rigs.imports.<binding>]`): the imported pack's agents are
 * named under the binding (`<binding>.<name>`, so a city identity is `binding.name` and a rig's
 * `rig/binding.name`, as upstream qualifies them), and bare `depends_on` names are bound the same way.
 * At the rig level every agent takes the rig's binding, replacing any it had. Pure.
 */
import { listOf, tableOf, tablesOf, textOf, type Table } from './layers.ts';

/** `name` under `binding`, replacing a binding it already has. Pure. */
const bound = (binding: string, name: string): string =>
  `${binding}.${name.slice(name.lastIndexOf('.') + 1)}`;

/** A copy of pack document `doc` with its agents (and their bare dependencies) under `binding`. Pure. */
export function bindPack(doc: Table, binding: string): Table {
  const agents = tablesOf(doc.agent).map((agent) => {
    const copy: Table = { ...agent, name: bound(binding, textOf(agent.name)) };
    if (agent.depends_on !== undefined)
      copy.depends_on = listOf(agent.depends_on).map((d) =>
        typeof d === 'string' && !d.includes('/') && !d.includes('.') ? bound(binding, d) : d,
      );
    return copy;
  });
  const sessions = tablesOf(doc.named_session).map((s) =>
    typeof s.template === 'string' && !s.template.includes('.') && !s.template.includes('/')
      ? { ...s, template: bound(binding, s.template) }
      : { ...s },
  );
  return { ...doc, agent: agents, named_session: sessions, pack: tableOf(doc.pack) };
}

/** The `[imports.*]` entries of a table, sorted by binding (upstream's order). Pure. */
export function importsOf(table: Table): Array<{ binding: string; spec: Table }> {
  return Object.entries(tableOf(table.imports))
    .map(([binding, spec]) => ({ binding, spec: tableOf(spec) }))
    .sort((a, b) => (a.binding < b.binding ? -1 : a.binding > b.binding ? 1 : 0));
}
