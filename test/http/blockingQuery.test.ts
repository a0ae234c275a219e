import t from 'tap';
import { ValidationError } from '../../actors/runtime/errors.ts';
import {
  DEFAULT_WAIT_MS,
  EVENT_LIST_MAX_WAIT_MS,
  MAX_WAIT_MS,
  parseBlockingQuery,
} from '../../http/blockingQuery.ts';
import { schemaDocuments } from '../../http/schemaDocuments.ts';

const errorsOf = (query: { index?: string; wait?: string }): unknown => {
  try {
    parseBlockingQuery(query, MAX_WAIT_MS);
  } catch (err) {
    if (err instanceof ValidationError) return err.errors;
    throw err;
  }
  return undefined;
};

t.test('no index, or a blank one, is no blocking query', async (t) => {
  t.equal(parseBlockingQuery({}, MAX_WAIT_MS), undefined);
  t.equal(parseBlockingQuery({ index: '', wait: '' }, MAX_WAIT_MS), undefined);
  t.equal(parseBlockingQuery({ wait: '10s' }, MAX_WAIT_MS), undefined);
  t.same(parseBlockingQuery({ index: '0' }, MAX_WAIT_MS), { index: 0, waitMs: DEFAULT_WAIT_MS });
  t.same(parseBlockingQuery({ index: '7', wait: '' }, MAX_WAIT_MS), { index: 7, waitMs: DEFAULT_WAIT_MS });
});

t.test('wait is a Go duration, clamped to the ceiling the route passes', async (t) => {
  const cases: Array<[string, number, number]> = [
    ['30s', 30_000, 30_000],
    ['1m30s', 90_000, 90_000],
    ['250ms', 250, 250],
    ['+5s', 5_000, 5_000],
    ['2m', 120_000, 120_000],
    ['3m', 120_000, 180_000],
    ['10m', 120_000, EVENT_LIST_MAX_WAIT_MS],
    ['1.5h', 120_000, EVENT_LIST_MAX_WAIT_MS],
  ];
  for (const [wait, ms, eventMs] of cases) {
    t.equal(parseBlockingQuery({ index: '1', wait }, MAX_WAIT_MS)?.waitMs, ms, wait);
    t.equal(
      parseBlockingQuery({ index: '1', wait }, EVENT_LIST_MAX_WAIT_MS)?.waitMs,
      eventMs,
      `${wait} (events)`,
    );
  }
});

t.test('a bad index or wait is a ValidationError naming each parameter', async (t) => {
  for (const index of ['-1', 'abc', '1.5', '+1', ' 1', '9007199254740992', '99999999999999999999']) {
    t.same(
      errorsOf({ index }),
      [{ location: 'query.index', message: 'index must be a non-negative integer', value: index }],
      index,
    );
  }
  for (const wait of ['5', '5d', '-1s', 'abc', '0', '0s', '5 s']) {
    const expected = [
      {
        location: 'query.wait',
        message: 'wait must be a positive Go duration string (e.g. 30s)',
        value: wait,
      },
    ];
    t.same(errorsOf({ index: '1', wait }), expected, wait);
    t.same(errorsOf({ wait }), expected, `${wait} without index`);
  }
  t.same(
    (errorsOf({ index: 'x', wait: 'y' }) as Array<{ location: string }>).map((e) => e.location),
    ['query.index', 'query.wait'],
  );
});

t.test('every index and wait parameter in the OpenAPI document says the same thing', async (t) => {
  const doc = JSON.parse((await schemaDocuments())['openapi.json']) as {
    paths: Record<
      string,
      Record<
        string,
        { parameters?: Array<{ name: string; in: string; description?: string; schema: { type?: string } }> }
      >
    >;
  };
  const seen = new Map<string, Set<string>>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const op of Object.values(ops)) {
      for (const p of op.parameters ?? []) {
        // `wait` on rotate is a boolean of another meaning.
        if (p.in !== 'query' || !['index', 'wait'].includes(p.name) || p.schema.type !== 'string') continue;
        const ceiling = path === '/v0/city/{cityName}/events' ? '5m' : '2m';
        const key = `${p.name} ${ceiling}`;
        seen.set(key, (seen.get(key) ?? new Set()).add(p.description ?? ''));
      }
    }
  }
  t.same([...seen.keys()].sort(), ['index 2m', 'index 5m', 'wait 2m', 'wait 5m']);
  const [index2m, index5m, wait2m, wait5m] = ['index 2m', 'index 5m', 'wait 2m', 'wait 5m'].map((k) => [
    ...seen.get(k)!,
  ]);
  t.same(index2m, index5m, 'one index description');
  t.equal(index2m!.length, 1);
  t.equal(wait2m!.length, 1, 'one wait description on every 2m route');
  t.match(wait2m![0], /Go duration string.*Default 30s, max 2m\..*422/);
  t.same(wait5m, [wait2m![0]!.replace('max 2m', 'max 5m')]);
});
