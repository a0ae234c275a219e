import t from 'tap';
import type { CityState } from '../../machines/city.machine.ts';
import {
  decideCityOp,
  type CityClaim,
  type CityOpDecision,
  type CityOpIntent,
  type CityOpView,
} from '../../machines/cityOps/decideCityOp.ts';
import type { RequestOperation } from '../../machines/request.machine.ts';

/**
 * The city-operation conflict policy as a table: each row is a supervisor view (claims held by handlers,
 * requests pending in the log, the registry, the city actors, the disk), an intent, and the answer.
 * Pure and fast: no supervisor, no disk.
 */

const A = '/cities/alpha';
const A2 = '/elsewhere/alpha';
const B = '/cities/beta';

interface Given {
  claims?: Record<string, CityClaim>;
  pending?: Array<{ operation: RequestOperation; name: string; path: string }>;
  registry?: Array<{ name: string; path: string }>;
  cities?: Record<string, { path: string; state: CityState }>;
}

const view = (g: Given): CityOpView => ({
  claims: new Map(Object.entries(g.claims ?? {})),
  pending: g.pending ?? [],
  registry: g.registry ?? [],
  cities: new Map(Object.entries(g.cities ?? {})),
});

/** alpha registered at A and running: the usual state of a created city. */
const alphaRunning: Given = {
  registry: [{ name: 'alpha', path: A }],
  cities: { alpha: { path: A, state: 'running' } },
};

const createClaim = (name = 'alpha'): CityClaim => ({ operation: 'create', name });
const unregisterClaim = (name = 'alpha'): CityClaim => ({ operation: 'unregister', name });

const inProgressAt = (path: string): CityOpDecision => ({
  verdict: 'refuse',
  refusal: {
    conflict: 'operation_in_progress',
    status: 409,
    message: `city operation already in progress at ${path}`,
  },
});
const createInProgressAt = (path: string): CityOpDecision => ({
  verdict: 'refuse',
  refusal: {
    conflict: 'create_in_progress',
    status: 409,
    message: `city initialization already in progress at ${path}`,
  },
});
const alreadyInitializedAt = (path: string): CityOpDecision => ({
  verdict: 'refuse',
  refusal: { conflict: 'already_initialized', status: 409, message: `city already initialized at ${path}` },
});
const nameRegistered = (name: string): CityOpDecision => ({
  verdict: 'refuse',
  refusal: {
    conflict: 'name_registered',
    status: 409,
    message: `a city named "${name}" is already registered with supervisor`,
  },
});
const notRegistered = (name: string): CityOpDecision => ({
  verdict: 'refuse',
  refusal: {
    conflict: 'not_registered',
    status: 404,
    message: `city not registered with supervisor: ${name}`,
  },
});
const acceptClaiming = (path: string, claim: CityClaim): CityOpDecision => ({
  verdict: 'accept',
  claim: { path, claim },
});
const accepted: CityOpDecision = { verdict: 'accept' };
const deferred: CityOpDecision = { verdict: 'defer' };

const createClaimOf = (path: string, name = 'alpha'): CityOpIntent => ({ op: 'create.claim', name, path });
const admit = (path: string, initialized = false, name = 'alpha'): CityOpIntent => ({
  op: 'create.admit',
  name,
  path,
  initialized,
});
const unregister = (name = 'alpha'): CityOpIntent => ({ op: 'unregister', name });

const table: Array<[string, Given, CityOpIntent, CityOpDecision]> = [
  // create vs nothing
  ['create of a free path claims it', {}, createClaimOf(A), acceptClaiming(A, createClaim())],
  ['create admitted on an empty directory', { claims: { [A]: createClaim() } }, admit(A), accepted],
  [
    'a directory with .gc but no log is not a city: admitted',
    { claims: { [A]: createClaim() } },
    admit(A, false),
    accepted,
  ],
  // create vs existing directory / registry
  [
    'create on an initialized city directory',
    { claims: { [A]: createClaim() } },
    admit(A, true),
    alreadyInitializedAt(A),
  ],
  [
    'create on a path the registry holds (its directory gone or emptied)',
    { ...alphaRunning, claims: { [A]: createClaim() } },
    admit(A, false),
    alreadyInitializedAt(A),
  ],
  [
    'create of a name the registry holds at another path',
    { ...alphaRunning, claims: { [A2]: createClaim() } },
    admit(A2),
    nameRegistered('alpha'),
  ],
  [
    'create of a name whose city is still being unregistered (registry entry already gone)',
    { cities: { alpha: { path: A, state: 'unregistering' } }, claims: { [A2]: createClaim() } },
    admit(A2),
    nameRegistered('alpha'),
  ],
  // create vs create
  [
    'create vs create: the path is claimed by a create',
    { claims: { [A]: createClaim() } },
    createClaimOf(A),
    createInProgressAt(A),
  ],
  [
    'create vs create: a create of the path is accepted and pending in the log',
    { pending: [{ operation: 'city.create', name: 'alpha', path: A }] },
    createClaimOf(A),
    createInProgressAt(A),
  ],
  [
    'create vs create: the same name claimed at another path',
    { claims: { [A]: createClaim(), [A2]: createClaim() } },
    admit(A2),
    nameRegistered('alpha'),
  ],
  [
    'create vs create of different cities: both proceed',
    { claims: { [B]: createClaim('beta') } },
    createClaimOf(A),
    acceptClaiming(A, createClaim()),
  ],
  [
    'create vs create of different cities: admitted beside another claim',
    { claims: { [A]: createClaim(), [B]: createClaim('beta') } },
    admit(A),
    accepted,
  ],
  // create vs unregister
  [
    'create vs unregister: the path is claimed by an unregister',
    { ...alphaRunning, claims: { [A]: unregisterClaim() } },
    createClaimOf(A),
    inProgressAt(A),
  ],
  [
    'create vs unregister: an unregister of the path is pending in the log',
    {
      cities: { alpha: { path: A, state: 'unregistering' } },
      pending: [{ operation: 'city.unregister', name: 'alpha', path: A }],
    },
    createClaimOf(A),
    inProgressAt(A),
  ],
  [
    'unregister vs create: the path is claimed by a create',
    { ...alphaRunning, claims: { [A]: createClaim() } },
    unregister(),
    inProgressAt(A),
  ],
  [
    'unregister vs create: a create of the city is pending in the log',
    {
      registry: [{ name: 'alpha', path: A }],
      cities: { alpha: { path: A, state: 'starting' } },
      pending: [{ operation: 'city.create', name: 'alpha', path: A }],
    },
    unregister(),
    inProgressAt(A),
  ],
  // unregister vs unregister / nothing
  [
    'unregister of a running city claims its path',
    alphaRunning,
    unregister(),
    acceptClaiming(A, unregisterClaim()),
  ],
  [
    'unregister of a failed city claims its path',
    { registry: [{ name: 'alpha', path: A }], cities: { alpha: { path: A, state: 'failed' } } },
    unregister(),
    acceptClaiming(A, unregisterClaim()),
  ],
  [
    'unregister vs unregister: the path is claimed by an unregister',
    { ...alphaRunning, claims: { [A]: unregisterClaim() } },
    unregister(),
    inProgressAt(A),
  ],
  ['unregister of a name nobody registered', {}, unregister(), notRegistered('alpha')],
  [
    'unregister of a registered city with no actor (its directory was missing at start)',
    { registry: [{ name: 'alpha', path: A }] },
    unregister(),
    notRegistered('alpha'),
  ],
  [
    'unregister of a city whose registry entry is gone',
    { cities: { alpha: { path: A, state: 'running' } } },
    unregister(),
    notRegistered('alpha'),
  ],
  [
    'unregister of a city with another request pending for its name (at another path)',
    { ...alphaRunning, pending: [{ operation: 'city.create', name: 'alpha', path: A2 }] },
    unregister(),
    inProgressAt(A),
  ],
  // unregister vs reconcile
  [
    'unregister vs reconcile: the reconciler is stopping the city for an unregister',
    { registry: [{ name: 'alpha', path: A }], cities: { alpha: { path: A, state: 'unregistering' } } },
    unregister(),
    inProgressAt(A),
  ],
  [
    'unregister vs reconcile: the city is unregistered, not yet detached',
    { registry: [{ name: 'alpha', path: A }], cities: { alpha: { path: A, state: 'unregistered' } } },
    unregister(),
    inProgressAt(A),
  ],
  [
    'reconcile vs unregister: the handler holds the path, the pass leaves the request be',
    { ...alphaRunning, claims: { [A]: unregisterClaim() } },
    { op: 'reconcile', path: A },
    deferred,
  ],
  [
    'reconcile vs create: the handler holds the path, the pass leaves the request be',
    { claims: { [A]: createClaim() } },
    { op: 'reconcile', path: A },
    deferred,
  ],
  [
    'reconcile of a path no handler holds',
    { ...alphaRunning, claims: { [B]: createClaim('beta') } },
    { op: 'reconcile', path: A },
    accepted,
  ],
  // stop vs the rest
  [
    'stop of a running city with nothing in progress',
    alphaRunning,
    { op: 'stop', name: 'alpha', path: A },
    accepted,
  ],
  [
    'stop vs unregister: the path is claimed',
    { ...alphaRunning, claims: { [A]: unregisterClaim() } },
    { op: 'stop', name: 'alpha', path: A },
    inProgressAt(A),
  ],
  [
    'stop vs a pending request for the city',
    { ...alphaRunning, pending: [{ operation: 'city.unregister', name: 'alpha', path: A }] },
    { op: 'stop', name: 'alpha', path: A },
    inProgressAt(A),
  ],
];

t.test('every conflict of the city-operation policy', async (t) => {
  for (const [what, given, intent, expected] of table) {
    t.same(decideCityOp(view(given), intent), expected, what);
  }
});

t.test('the policy is pure: it changes nothing in the view it reads', async (t) => {
  for (const [what, given, intent] of table) {
    const v = view(given);
    const before = JSON.stringify([[...v.claims], v.pending, v.registry, [...v.cities]]);
    const first = decideCityOp(v, intent);
    t.equal(JSON.stringify([[...v.claims], v.pending, v.registry, [...v.cities]]), before, what);
    t.same(decideCityOp(v, intent), first, `${what}: the same view, the same answer`);
  }
});
