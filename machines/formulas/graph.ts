/**
 * A cycle through `edges` (each node's prerequisites), as the path that closes it (`a -> b -> a`), or
 * undefined. Iterative depth-first search; each node is visited once. This is a pure function.
 */
export function findCycle(
  nodes: readonly string[],
  edges: (id: string) => readonly string[],
): string[] | undefined {
  const state = new Map<string, 1 | 2>(); // 1: on the path, 2: done
  for (const start of nodes) {
    if (state.has(start)) continue;
    const path: string[] = [];
    const stack: { id: string; next: number }[] = [{ id: start, next: 0 }];
    state.set(start, 1);
    path.push(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const out = edges(top.id);
      if (top.next >= out.length) {
        state.set(top.id, 2);
        stack.pop();
        path.pop();
        continue;
      }
      const to = out[top.next++]!;
      const seen = state.get(to);
      if (seen === 1) return [...path.slice(path.indexOf(to)), to];
      if (seen === 2) continue;
      state.set(to, 1);
      path.push(to);
      stack.push({ id: to, next: 0 });
    }
  }
  return undefined;
}

/**
 * `nodes` ordered so every node comes after its prerequisites, ties kept in input order (the file's
 * order of steps). Assumes no cycle. This is a pure function.
 */
export function topoOrder(nodes: readonly string[], edges: (id: string) => readonly string[]): string[] {
  const done = new Set<string>();
  const out: string[] = [];
  const visit = (id: string) => {
    const stack: { id: string; next: number }[] = [{ id, next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const deps = edges(top.id);
      if (top.next < deps.length) {
        const dep = deps[top.next++]!;
        if (!done.has(dep)) stack.push({ id: dep, next: 0 });
        continue;
      }
      stack.pop();
      if (!done.has(top.id)) {
        done.add(top.id);
        out.push(top.id);
      }
    }
  };
  for (const n of nodes) if (!done.has(n)) visit(n);
  return out;
}
