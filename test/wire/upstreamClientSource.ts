/**
 * The source of a client written against upstream's generated types: one openapi-fetch call per operation
 * of upstream's document (by operation id), passing the parameters and body upstream's types describe and
 * keeping the answer and the error as upstream's types describe them. Compiled against another document's
 * `paths` (the `target` module), it type-checks only when that document accepts every such request and
 * answers in types assignable to upstream's.
 */

interface Doc {
  paths: Record<string, Record<string, { operationId?: string; requestBody?: unknown }>>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

/**
 * The client module: `target` is the module the client's `paths` come from, `upstream` the module of
 * upstream's generated types (both without `.ts`). Pure.
 */
export function upstreamClientSource(upstreamDoc: Doc, target: string, upstream: string): string {
  const calls: string[] = [];
  for (const [path, item] of Object.entries(upstreamDoc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const p = JSON.stringify(path);
      const spec = `Upstream[${p}][${JSON.stringify(method)}]`;
      const body = op.requestBody
        ? `, body: value<NonNullable<${spec}['requestBody']>['content']['application/json']>()`
        : '';
      calls.push(
        `  // ${op.operationId ?? `${method} ${path}`}\n` +
          `  {\n` +
          `    const r = await client.${method.toUpperCase()}(${p}, { params: value<${spec}['parameters']>()${body} });\n` +
          `    const data: Data<${spec}> | undefined = r.data;\n` +
          `    const error: Failure<${spec}> | undefined = r.error;\n` +
          `    seen.push(data, error);\n` +
          `  }`,
      );
    }
  }
  return [
    `import createClient, { type FetchResponse } from 'openapi-fetch';`,
    `import type { paths } from './${target}.ts';`,
    `import type { paths as Upstream } from './${upstream}.ts';`,
    ``,
    `type Media = \`\${string}/\${string}\`;`,
    `// eslint-disable-next-line @typescript-eslint/no-explicit-any`,
    `type Data<Op extends Record<string | number, any>> = FetchResponse<Op, object, Media>['data'];`,
    `// eslint-disable-next-line @typescript-eslint/no-explicit-any`,
    `type Failure<Op extends Record<string | number, any>> = FetchResponse<Op, object, Media>['error'];`,
    `declare function value<T>(): T;`,
    ``,
    `const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8372' });`,
    `export const seen: unknown[] = [];`,
    ``,
    `export async function callEveryOperation(): Promise<void> {`,
    ...calls,
    `}`,
    ``,
  ].join('\n');
}

/** How many calls `upstreamClientSource` writes for `doc`: its operations. Pure. */
export const operationCount = (doc: Doc): number =>
  Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).filter((m) => METHODS.has(m)).length, 0);
