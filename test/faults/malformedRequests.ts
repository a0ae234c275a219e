import type { Rng } from './kit.ts';
import {
  fillPath,
  resolveRef,
  sampleOf,
  wrongTypedValues,
  type OpenApiDoc,
  type Operation,
} from './openapiOps.ts';

/** One request that the contract says must be refused, and why. */
export interface MalformedRequest {
  category: string;
  op: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  stream: boolean;
}

/** What the generators need besides the document: values that make the rest of a request plausible. */
export interface Fixture {
  doc: OpenApiDoc;
  ops: Operation[];
  /** Path parameter values that exist (a running city, a bead, a mail, a convoy…). */
  values: Record<string, string>;
  /** An absolute directory the supervisor may create cities under, for over-long names. */
  scratch: string;
}

type Generator = (fx: Fixture, r: Rng) => MalformedRequest | undefined;

const JSON_HEADERS = { 'content-type': 'application/json', 'x-gc-request': 'fuzz' };
/** Just over the app's 1 MiB body limit. */
const HUGE = 1024 * 1024 + 4096;

const base = (
  op: Operation,
  fx: Fixture,
  category: string,
  extra: Partial<MalformedRequest> = {},
): MalformedRequest => ({
  category,
  op: op.id,
  method: op.method,
  url: fillPath(op.path, fx.values),
  headers: op.mutation ? { 'x-gc-request': 'fuzz' } : {},
  stream: op.stream,
  ...extra,
});

const withBody = (fx: Fixture): Operation[] => fx.ops.filter((o) => o.body && o.validBody);

/** A body that the document's own schema rejects, built by `mutate` from a valid-looking sample. */
function invalidBody(
  category: string,
  mutate: (body: Record<string, unknown>, op: Operation, fx: Fixture, r: Rng) => unknown,
): Generator {
  return (fx, r) => {
    const op = r.pick(withBody(fx));
    const sample = sampleOf(fx.doc, op.body) as Record<string, unknown>;
    const body = mutate(structuredClone(sample), op, fx, r);
    if (body === undefined || op.validBody!(body)) return undefined;
    return base(op, fx, category, { headers: JSON_HEADERS, payload: JSON.stringify(body) });
  };
}

const propertiesOf = (op: Operation, fx: Fixture): Array<[string, unknown]> =>
  Object.entries(resolveRef(fx.doc, op.body)?.properties ?? {});

const wrongType = invalidBody('wrong type', (body, op, fx, r) => {
  const props = propertiesOf(op, fx);
  if (props.length === 0) return undefined;
  const [name, schema] = r.pick(props);
  body[name] = r.pick(wrongTypedValues(fx.doc, schema as never));
  return body;
});

const missingField = invalidBody('missing field', (body, op, fx, r) => {
  const required = resolveRef(fx.doc, op.body)?.required ?? [];
  if (required.length === 0) return undefined;
  delete body[r.pick(required)];
  return body;
});

const unknownField = invalidBody('unknown field', (body, _op, _fx, r) => ({
  ...body,
  [r.pick(['unexpected', 'Title', 'extra_field', 'x-y', '__typename', ''])]: r.pick(['x', 1, null, {}]),
}));

const notAnObject = invalidBody('body not an object', (_body, _op, _fx, r) =>
  r.pick<unknown>([[], ['a'], 'string', 42, true, null, [{}]]),
);

/** JSON.stringify never writes `__proto__` keys, so these bodies are spelled out. */
const pollution: Generator = (fx, r) => {
  const op = r.pick(withBody(fx));
  const sample = JSON.stringify(sampleOf(fx.doc, op.body)).slice(1, -1);
  const evil = r.pick([
    '"__proto__": {"polluted": true}',
    '"constructor": {"prototype": {"polluted": true}}',
    '"__proto__": {"toString": "boom"}',
  ]);
  return base(op, fx, 'prototype pollution', {
    headers: JSON_HEADERS,
    payload: `{${sample}${sample ? ',' : ''}${evil}}`,
  });
};

const SYNTAX = [
  '{',
  '{"a":',
  '{"title": "x",}',
  "{'title': 'x'}",
  '{"title": NaN}',
  '{"title": "x"} trailing',
  '/* comment */ {"title": "x"}',
  '\uFEFF{"title": "x"}',
  '{"title": "unterminated}',
  '{"title": "\\u12"}',
  '{"a":1,"a":2,',
  'undefined',
  '{{}}',
  '['.repeat(100_000) + ']'.repeat(100_000),
  '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000),
];

const jsonSyntax: Generator = (fx, r) =>
  base(r.pick(withBody(fx)), fx, 'json syntax', { headers: JSON_HEADERS, payload: r.pick(SYNTAX) });

const emptyBody: Generator = (fx, r) => {
  const op = r.pick(withBody(fx).filter((o) => (resolveRef(fx.doc, o.body)?.required ?? []).length > 0));
  return base(op, fx, 'empty body', { headers: JSON_HEADERS, payload: r.pick(['', ' ', '\n', '{}']) });
};

const hugeBody: Generator = (fx, r) => {
  const op = r.pick(fx.ops.filter((o) => o.mutation));
  const filler = 'x'.repeat(HUGE);
  const payload = r.pick([`{"title":"${filler}"}`, `["${filler}"]`, filler]);
  return base(op, fx, 'huge body', { headers: JSON_HEADERS, payload });
};

/** Byte sequences that are not UTF-8: a lone continuation byte, 0xFF, an overlong '/', a surrogate. */
const BAD_UTF8 = [[0x80], [0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xc3, 0x28], [0xf4, 0x90, 0x80, 0x80]];

const invalidUtf8Body: Generator = (fx, r) => {
  const op = r.pick(withBody(fx));
  const sample = sampleOf(fx.doc, op.body) as Record<string, unknown>;
  const strings = Object.keys(sample).filter((k) => typeof sample[k] === 'string');
  const marker = '\u0001MARK\u0001';
  if (strings.length > 0) sample[r.pick(strings)] = marker;
  const text = JSON.stringify(strings.length > 0 ? sample : { [marker]: 1 });
  const [before, after] = text.split(JSON.stringify(marker).slice(1, -1));
  const payload = Buffer.concat([
    Buffer.from(before!),
    Buffer.from('ok'),
    Buffer.from(r.pick(BAD_UTF8)),
    Buffer.from(after!),
  ]);
  return base(op, fx, 'invalid utf-8 body', { headers: JSON_HEADERS, payload });
};

const invalidUtf8Url: Generator = (fx, r) => {
  const op = r.pick(fx.ops.filter((o) => o.pathParams.length > 0));
  const param = r.pick(op.pathParams);
  const bad = r.pick(['%FF', '%C0%AF', '%ED%A0%80', 'alpha%80', '%E2%82']);
  const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === param ? bad : encodeURIComponent(fx.values[name] ?? 'x'),
  );
  return base(op, fx, 'invalid utf-8 in path', {
    url,
    ...(op.body ? { headers: JSON_HEADERS, payload: '[]' } : {}),
  });
};

/**
 * Dot segments: a URL parser (ours and every client's) folds them away before the request is routed, so
 * `GET /v0/city/../events` is a valid read of `/v0/events`. They are sent to mutations only, whose bodies
 * are made invalid, so the request stays malformed wherever it lands; a bodyless mutation gets none.
 */
const DOT_SEGMENTS = ['..', '.', '%2e%2e', '%2E.', '%2e%2e%2f%2e%2e%2fetc'];

/** Names that try to leave their directory or smuggle separators; inserted raw (already percent-encoded). */
const TRAVERSAL = [
  '..%2F..%2Fetc%2Fpasswd',
  '..%5C..%5Cwindows',
  '%00',
  'alpha%00',
  'alpha%2F..%2Fbeta',
  '%252e%252e',
  '%C0%AE%C0%AE',
  'a'.repeat(5000),
  '%20',
  'alpha%0D%0AX-Injected:%201',
];

/** Reads whose path parameter is a filter, not a resource: an unknown value is an empty answer, not a 404. */
const FILTER_READS = new Set(['get-v0-city-by-city-name-mail-thread-by-id']);

const pathTraversal: Generator = (fx, r) => {
  const op = r.pick(fx.ops.filter((o) => o.pathParams.length > 0 && !FILTER_READS.has(o.id)));
  const param = r.pick(op.pathParams);
  // Without a body to keep it invalid, a dot segment can land on another real bodyless mutation
  // (`/session/../stop` is the city's `/stop`): those get only the names that stay inside their segment.
  const bad = r.pick(op.mutation && op.body ? [...TRAVERSAL, ...DOT_SEGMENTS] : TRAVERSAL);
  const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === param ? bad : encodeURIComponent(fx.values[name] ?? 'x'),
  );
  // A path that still names a real resource must not carry a valid body: invalid bodies keep the request
  // malformed whichever way the server reads the path.
  return base(op, fx, 'path traversal in names', {
    url,
    ...(op.body ? { headers: JSON_HEADERS, payload: '{"unexpected": true}' } : {}),
  });
};

/** Create bodies whose `dir` escapes $HOME, names nothing usable, or cannot exist. */
const traversalDir: Generator = (fx, r) => {
  const op = fx.ops.find((o) => o.id === 'post-v0-city');
  if (!op) return undefined;
  const dir = r.pick([
    '../escape',
    '../../../../../../etc/evil',
    'a/../../escape',
    './',
    '.',
    '..',
    '   ',
    'a\u0000b',
    '/',
    '/dev/null',
    `${fx.scratch}/${'x'.repeat(300)}`,
    `${fx.scratch}/bad name with spaces`,
    `${fx.values.cityName}`,
    `${fx.values.cityName}/.gc/events.jsonl`,
  ]);
  return base(op, fx, 'path traversal in dirs', {
    headers: JSON_HEADERS,
    payload: JSON.stringify({ dir, start_command: 'true' }),
  });
};

const headerInjection: Generator = (fx, r) => {
  const choice = r.int(0, 4);
  if (choice === 0) {
    const op = r.pick(withBody(fx));
    return base(op, fx, 'header injection', {
      headers: { 'content-type': 'application/json', 'x-gc-request': 'a\r\nX-Injected: 1' },
      payload: '{"unexpected": true}',
    });
  }
  if (choice === 1) {
    const op = r.pick(withBody(fx));
    const type = r.pick([
      'application/xml',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json\r\nX-Injected: 1',
      'application/jsonx',
    ]);
    return base(op, fx, 'header injection', {
      headers: { 'content-type': type, 'x-gc-request': 'fuzz' },
      payload: JSON.stringify(sampleOf(fx.doc, op.body)),
    });
  }
  if (choice === 2) {
    // The live actor view's stream takes no Last-Event-ID (a reconnect starts with the whole list), so a bad
    // one is no error there: only the resumable streams get these.
    const op = r.pick(fx.ops.filter((o) => o.stream && o.path !== '/v0/actors/stream'));
    return base(op, fx, 'header injection', {
      headers: {
        'last-event-id': r.pick(['1\r\nevent: evil', 'abc', '-5', '__supervisor__:x', '1\u0000', ':,:']),
      },
    });
  }
  const op = r.pick(withBody(fx));
  return base(op, fx, 'header injection', {
    headers: {
      ...JSON_HEADERS,
      origin: 'http://localhost:1\r\nSet-Cookie: stolen=1',
      'idempotency-key': 'k'.repeat(r.int(1, 10_000)),
    },
    payload: '{"unexpected": true}',
  });
};

/**
 * Not integers of the one query grammar (decimal digits, at most 2^53 - 1), whatever `Number()` or Ajv's
 * coercion would make of them. Spelled as they go into the URL.
 */
const BAD_INTEGERS = [
  'abc',
  '1.5',
  'NaN',
  '[]',
  '%FF',
  '1 OR 1=1',
  '-0.5',
  'true',
  '1,2',
  '0x1F',
  '1e999',
  '1e3',
  'Infinity',
  '%2B1',
  '%201',
  '99999999999999999999',
];

const queryWrongType: Generator = (fx, r) => {
  const candidates = fx.ops.flatMap((op) =>
    op.query
      .filter((q) => {
        const t = resolveRef(fx.doc, q.schema)?.type;
        return t === 'integer' || t === 'number';
      })
      .map((q) => [op, q.name] as const),
  );
  const [op, name] = r.pick(candidates);
  const min = resolveRef(fx.doc, op.query.find((q) => q.name === name)?.schema)?.minimum;
  const value = r.pick(min !== undefined && min >= 0 ? [...BAD_INTEGERS, '-1', '-99'] : BAD_INTEGERS);
  const url = `${fillPath(op.path, fx.values)}?${name}=${value}`;
  return base(op, fx, 'query wrong type', {
    url,
    ...(op.body ? { headers: JSON_HEADERS, payload: '[]' } : {}),
  });
};

/** Values of string parameters with a syntax of their own (durations, cursors, blocking indexes). */
const querySemantic: Generator = (fx, r) => {
  const cases: Array<[string, string[]]> = [
    ['index', ['abc', '-1', '1.5', '99999999999999999999', '1e3', '0x10', '+1']],
    ['since', ['5 minutes', 'abc', '1y', '10', '5m5']],
    ['cursor', ['garbage', '%FF', '../..', '-1']],
    [
      'after_cursor',
      ['x', 'a:b', '__supervisor__:-1', ':', ',,', 'alpha:1.5', '__supervisor__:1,__supervisor__:2'],
    ],
    ['after_seq', ['abc', '-1', '1.5', 'x1', '1e3', '0x10', '+1', ' 1', '9007199254740992']],
    ['include', ['INTERNAL', 'internal,x', 'all', ' internal', 'true']],
  ];
  const options = fx.ops.flatMap((op) =>
    cases
      .filter(([name]) => op.query.some((q) => q.name === name))
      .map(([name, values]) => [op, name, values] as const),
  );
  const [op, name, values] = r.pick(options);
  let query = `${name}=${encodeURIComponent(r.pick(values))}`;
  if (name === 'index' && r() < 0.5) query += '&wait=forever';
  return base(op, fx, 'query bad value', { url: `${fillPath(op.path, fx.values)}?${query}` });
};

const unknownRoute: Generator = (fx, r) => {
  const op = r.pick(fx.ops);
  const taken = new Set(fx.ops.filter((o) => o.path === op.path).map((o) => o.method));
  const methods = ['GET', 'PUT', 'PATCH', 'DELETE', 'POST'].filter((m) => !taken.has(m));
  if (r() < 0.5 && methods.length > 0) {
    const method = r.pick(methods);
    return {
      ...base(op, fx, 'unknown route'),
      method,
      headers: method === 'GET' ? {} : { 'x-gc-request': 'fuzz' },
    };
  }
  const url = `${fillPath(op.path, fx.values)}/${r.pick(['nope', 'x/y/z', '', '%00'])}/`;
  return { ...base(op, fx, 'unknown route'), url };
};

/** A mutation with a valid body but no X-GC-Request: refused before anything runs. */
const missingCsrf: Generator = (fx, r) => {
  const op = r.pick(fx.ops.filter((o) => o.mutation));
  const body = op.body ? JSON.stringify(sampleOf(fx.doc, op.body)) : undefined;
  return base(op, fx, 'missing X-GC-Request', {
    headers: body ? { 'content-type': 'application/json' } : {},
    ...(body ? { payload: body } : {}),
  });
};

/** Each category with its weight (how often it is drawn). */
export const CATEGORIES: ReadonlyArray<[Generator, number]> = [
  [wrongType, 12],
  [missingField, 8],
  [unknownField, 8],
  [notAnObject, 5],
  [pollution, 3],
  [jsonSyntax, 6],
  [emptyBody, 3],
  [hugeBody, 1],
  [invalidUtf8Body, 6],
  [invalidUtf8Url, 4],
  [pathTraversal, 10],
  [traversalDir, 6],
  [headerInjection, 8],
  [queryWrongType, 8],
  [querySemantic, 6],
  [unknownRoute, 4],
  [missingCsrf, 4],
];

/** `count` malformed requests drawn from the categories by weight (a seeded, repeatable sequence). */
export function malformedRequests(fx: Fixture, r: Rng, count: number): MalformedRequest[] {
  const pool = CATEGORIES.flatMap(([g, w]) => Array<Generator>(w).fill(g));
  const out: MalformedRequest[] = [];
  while (out.length < count) {
    const req = r.pick(pool)(fx, r);
    if (req) out.push(req);
  }
  return out;
}
