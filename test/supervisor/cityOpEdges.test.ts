/**
 * The city-operation policy (machines/cityOps/decideCityOp.ts) with other cities about: what is in progress
 * for one city or path must not block another, and what is in progress at a city's path blocks it whatever
 * name the request carries. cityOpPolicy.test.ts has the conflicts of one city with itself.
 */
import t from 'tap';
import type { CityState } from '../../machines/city.machine.ts';
import { decideCityOp, type CityClaim, type CityOpView } from '../../machines/cityOps/decideCityOp.ts';
import type { RequestOperation } from '../../machines/request.machine.ts';

const A = '/cities/alpha';
const B = '/cities/beta';

const view = (g: {
  claims?: Record<string, CityClaim>;
  pending?: Array<{ operation: RequestOperation; name: string; path: string }>;
  registry?: Array<{ name: string; path: string }>;
  cities?: Record<string, { path: string; state: CityState }>;
}): CityOpView => ({
  claims: new Map(Object.entries(g.claims ?? {})),
  pending: g.pending ?? [],
  registry: g.registry ?? [],
  cities: new Map(Object.entries(g.cities ?? {})),
});

/** beta registered at B and running, with its create still pending: busy, but not alpha's business. */
const betaBusy = {
  registry: [{ name: 'beta', path: B }],
  cities: { beta: { path: B, state: 'running' as const } },
  pending: [{ operation: 'city.create' as const, name: 'beta', path: B }],
};

const inProgress = (path: string) => ({
  verdict: 'refuse',
  refusal: {
    conflict: 'operation_in_progress',
    status: 409,
    message: `city operation already in progress at ${path}`,
  },
});

t.test('a create pending at another path does not hold this one', async (t) => {
  t.same(decideCityOp(view(betaBusy), { op: 'create.claim', name: 'alpha', path: A }), {
    verdict: 'accept',
    claim: { path: A, claim: { operation: 'create', name: 'alpha' } },
  });
});

t.test('a create is admitted beside other registered cities', async (t) => {
  t.same(
    decideCityOp(view({ ...betaBusy, claims: { [A]: { operation: 'create', name: 'alpha' } } }), {
      op: 'create.admit',
      name: 'alpha',
      path: A,
      initialized: false,
    }),
    { verdict: 'accept' },
  );
});

t.test('unregister finds the city’s own registry entry and path', async (t) => {
  const given = {
    registry: [
      { name: 'beta', path: B },
      { name: 'alpha', path: A },
    ],
    cities: { beta: { path: B, state: 'running' as const }, alpha: { path: A, state: 'running' as const } },
  };
  t.same(decideCityOp(view(given), { op: 'unregister', name: 'alpha' }), {
    verdict: 'accept',
    claim: { path: A, claim: { operation: 'unregister', name: 'alpha' } },
  });
  // An actor without its own registry entry is not registered, whatever else the registry holds.
  t.same(
    decideCityOp(view({ registry: [{ name: 'beta', path: B }], cities: given.cities }), {
      op: 'unregister',
      name: 'alpha',
    }),
    {
      verdict: 'refuse',
      refusal: {
        conflict: 'not_registered',
        status: 404,
        message: 'city not registered with supervisor: alpha',
      },
    },
  );
});

t.test('unregister is not blocked by another city’s pending request', async (t) => {
  const given = {
    ...betaBusy,
    registry: [...betaBusy.registry, { name: 'alpha', path: A }],
    cities: { ...betaBusy.cities, alpha: { path: A, state: 'running' as const } },
  };
  t.same(decideCityOp(view(given), { op: 'unregister', name: 'alpha' }), {
    verdict: 'accept',
    claim: { path: A, claim: { operation: 'unregister', name: 'alpha' } },
  });
});

t.test('unregister is blocked by a request pending at the city’s path under another name', async (t) => {
  // The directory is what both would touch: the name on the request does not make it safe.
  const given = {
    registry: [{ name: 'alpha', path: A }],
    cities: { alpha: { path: A, state: 'running' as const } },
    pending: [{ operation: 'city.create' as const, name: 'gamma', path: A }],
  };
  t.same(decideCityOp(view(given), { op: 'unregister', name: 'alpha' }), inProgress(A));
});

t.test('stop is not blocked by another city’s pending request', async (t) => {
  const given = {
    ...betaBusy,
    registry: [...betaBusy.registry, { name: 'alpha', path: A }],
    cities: { ...betaBusy.cities, alpha: { path: A, state: 'running' as const } },
  };
  t.same(decideCityOp(view(given), { op: 'stop', name: 'alpha', path: A }), { verdict: 'accept' });
});
