import t from 'tap';
import { CityOpClaims } from '../../actors/supervisor/cityOpClaims.ts';
import { ConflictError, NotFoundError } from '../../actors/runtime/errors.ts';
import type { CityState } from '../../machines/city.machine.ts';
import type { RequestOperation } from '../../machines/request.machine.ts';

/**
 * The one holder of city claims applies the policy's answers: a claim is taken only when the policy
 * accepts, a refusal is the error the API answers with and takes nothing, and every decision reads the
 * facts as they are at that moment.
 */

const A = '/cities/alpha';

/** What `fn` throws (undefined when it returns). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

function holder() {
  const facts = {
    pending: [] as Array<{ operation: RequestOperation; name: string; path: string }>,
    registry: [] as Array<{ name: string; path: string }>,
    cities: new Map<string, { path: string; state: CityState }>(),
  };
  return { facts, claims: new CityOpClaims(facts) };
}

t.test('a create claims its path; a second create of it is a 409 until the first releases', async (t) => {
  const { claims } = holder();
  t.equal(claims.claim({ op: 'create.claim', name: 'alpha', path: A }), A);
  t.equal(claims.size, 1);
  t.notOk(claims.mayReconcile(A), 'the reconciler leaves a claimed path to its handler');
  const err = thrown(() => claims.claim({ op: 'create.claim', name: 'alpha', path: A }));
  t.type(err, ConflictError);
  t.match(err, { status: 409, detail: `conflict: city initialization already in progress at ${A}` });
  t.equal(claims.size, 1, 'the refused create took nothing');
  claims.release(A);
  t.equal(claims.size, 0);
  t.ok(claims.mayReconcile(A));
  t.equal(claims.claim({ op: 'create.claim', name: 'alpha', path: A }), A, 'free again');
});

t.test('an unregister of an unknown city is a 404 and takes no claim', async (t) => {
  const { claims } = holder();
  t.throws(() => claims.claim({ op: 'unregister', name: 'ghost' }), NotFoundError);
  t.match(
    thrown(() => claims.claim({ op: 'unregister', name: 'ghost' })),
    {
      status: 404,
      detail: 'not_found: city not registered with supervisor: ghost',
    },
  );
  t.equal(claims.size, 0);
});

t.test('each decision reads the facts as they are then', async (t) => {
  const { facts, claims } = holder();
  claims.check({ op: 'create.admit', name: 'alpha', path: A, initialized: false });
  facts.registry.push({ name: 'alpha', path: '/elsewhere/alpha' });
  t.match(
    thrown(() => claims.check({ op: 'create.admit', name: 'alpha', path: A, initialized: false })),
    {
      status: 409,
      detail: 'conflict: a city named "alpha" is already registered with supervisor',
    },
  );
  facts.cities.set('alpha', { path: '/elsewhere/alpha', state: 'running' });
  t.equal(
    claims.claim({ op: 'unregister', name: 'alpha' }),
    '/elsewhere/alpha',
    'the registry path is claimed',
  );
  facts.pending.push({ operation: 'city.unregister', name: 'alpha', path: '/elsewhere/alpha' });
  claims.release('/elsewhere/alpha');
  t.match(
    thrown(() => claims.check({ op: 'stop', name: 'alpha', path: '/elsewhere/alpha' })),
    {
      status: 409,
      detail: 'conflict: city operation already in progress at /elsewhere/alpha',
    },
  );
});
