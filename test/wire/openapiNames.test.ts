/**
 * The served OpenAPI document names what it serves as upstream's does, so a client generated from ours is
 * the client generated from upstream's: the same operation ids and component names (our additions listed
 * here and nowhere else), upstream's `info` with the version `/health` reports, and the header parameters
 * in upstream's spelling. Upstream's document is `../shared/reference/upstream-openapi.json`.
 */
import t from 'tap';
import { memoryApp } from '../helpers/app.ts';
import { upstreamDocument } from '../helpers/upstreamDocument.ts';

interface Doc {
  info: { title: string; version: string };
  paths: Record<
    string,
    Record<string, { operationId?: string; parameters?: { in: string; name: string }[] }>
  >;
  components: { schemas: Record<string, unknown> };
}

/** Our operations upstream has not (compatibility.md lists each). */
const OUR_OPERATIONS = [
  'add-bead-dependency',
  'claim-bead',
  'cook-formula',
  'get-openapi',
  'get-v0-city-by-city-name-doctor',
  'get-v0-schema-events',
  'get-v0-schema-openapi',
  'list-actors',
  'post-v0-cities-register',
  'post-v0-city-by-city-name-doctor-fix',
  'post-v0-city-by-city-name-order-by-name-run',
  'post-v0-city-by-city-name-start',
  'post-v0-city-by-city-name-stop',
  'remove-bead-dependency',
  'stream-actors',
];
/** Our components upstream has not: the schemas of our operations and extras. */
const OUR_COMPONENTS = [
  'ActorEntry',
  'ActorListBody',
  'ConfigProblemResponse',
  'ConfigValueSource',
  'WireEvent',
  'WireTaggedEvent',
];
/**
 * Per operation, the components it reaches in our document and not in upstream's (our additions, opt-in
 * or our own routes); every component upstream's reaches, ours reaches too.
 */
const OPERATION_ADDITIONS: Record<string, string[]> = {
  'get /v0/city/{cityName}/config/explain': ['ConfigValueSource'],
  'get /v0/city/{cityName}/config/validate': ['ConfigProblemResponse'],
  'get /v0/city/{cityName}/events': ['WireEvent'],
  'get /v0/events': ['WireTaggedEvent'],
};

/** The component names `node` reaches in `doc`, through `$ref`s transitively. */
function reached(doc: Doc, node: unknown): Set<string> {
  const seen = new Set<string>();
  const stack = [node];
  while (stack.length > 0) {
    const text = JSON.stringify(stack.pop()) ?? '';
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (name === undefined || seen.has(name)) continue;
      seen.add(name);
      stack.push(doc.components.schemas[name]);
    }
  }
  return seen;
}

const operationIds = (doc: Doc): Set<string> =>
  new Set(
    Object.values(doc.paths).flatMap((item) =>
      Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : [])),
    ),
  );
const minus = (a: Set<string>, b: Set<string>): string[] => [...a].filter((x) => !b.has(x)).sort();

t.test('operation ids, component names, info and header names are upstream’s', async (t) => {
  const upstream = upstreamDocument<Doc>();
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  const ours = (await app.inject({ url: '/openapi.json' })).json<Doc>();

  t.same(minus(operationIds(upstream), operationIds(ours)), [], 'every upstream operation, under its id');
  t.same(minus(operationIds(ours), operationIds(upstream)), OUR_OPERATIONS, 'only our listed additions');
  for (const [path, item] of Object.entries(upstream.paths))
    for (const [method, op] of Object.entries(item))
      if (op.operationId)
        t.equal(
          ours.paths[path]?.[method]?.operationId,
          op.operationId,
          `${method} ${path} has upstream's id`,
        );

  const upNames = new Set(Object.keys(upstream.components.schemas));
  const ourNames = new Set(Object.keys(ours.components.schemas));
  t.same(minus(upNames, ourNames), [], 'every upstream component name');
  t.same(minus(ourNames, upNames), OUR_COMPONENTS, 'only our listed additions');

  t.same(ours.info.title, upstream.info.title);
  const health = (await app.inject({ url: '/health' })).json<{ version: string }>();
  t.equal(ours.info.version, health.version, 'info.version is the version /health reports');

  const headers = (doc: Doc) =>
    new Set(
      Object.values(doc.paths).flatMap((item) =>
        Object.values(item).flatMap((op) =>
          (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name),
        ),
      ),
    );
  t.same([...headers(ours)].sort(), [...headers(upstream)].sort(), 'header parameters spelled as upstream');
});

t.test('every served upstream operation reaches upstream’s components, but for listed ones', async (t) => {
  const upstream = upstreamDocument<Doc>();
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  const ours = (await app.inject({ url: '/openapi.json' })).json<Doc>();
  for (const [path, item] of Object.entries(upstream.paths))
    for (const [method, op] of Object.entries(item)) {
      const key = `${method} ${path}`;
      const up = reached(upstream, op);
      const our = reached(ours, ours.paths[path]?.[method]);
      t.same(minus(our, up), OPERATION_ADDITIONS[key] ?? [], `${key}: only listed additions`);
      t.same(minus(up, our), [], `${key}: upstream’s names`);
    }
});
