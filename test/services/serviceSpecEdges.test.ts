/**
 * The edges of `[[service]]` checking that rules.test.ts leaves out: whole-string name and hostname rules,
 * the hostname default made from a name (runs, ends, the 63-character cap), where a state root may lie,
 * the optional keys that pass through, duplicate and nameless tables, and the default restart backoff.
 */
import t from 'tap';
import { DEFAULT_RESTART_POLICY, restartDelayMs } from '../../machines/workspaceServices/restartPolicy.ts';
import {
  isConfigError,
  serviceSpecOf,
  serviceSpecsOf,
} from '../../machines/workspaceServices/serviceSpec.ts';

/** A valid workflow service named `name`, with `extra` keys on top. */
const wf = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  workflow: { contract: 'c' },
  ...extra,
});
const errorOf = (raw: unknown) => {
  const s = serviceSpecOf(raw);
  return isConfigError(s) ? s.error : undefined;
};
const specOf = (raw: unknown) => {
  const s = serviceSpecOf(raw);
  if (isConfigError(s)) throw new Error(`refused: ${s.error}`);
  return s;
};

t.test('a name must match as a whole', async (t) => {
  // A name ends up in paths, hostnames and URLs: one that only starts well is still refused.
  t.equal(errorOf(wf('docs.v2')), 'service name "docs.v2" must match [a-zA-Z0-9][a-zA-Z0-9_-]*');
  t.equal(errorOf(wf('a b')), 'service name "a b" must match [a-zA-Z0-9][a-zA-Z0-9_-]*');
  t.equal(specOf(wf('  docs  ')).name, 'docs', 'surrounding blanks of a hand-edited file are trimmed');
});

t.test('what is not a table is a table with no keys', async (t) => {
  for (const raw of [null, undefined, 'docs', ['docs'], 3])
    t.same(
      serviceSpecOf(raw),
      { name: '', error: 'service name "" must match [a-zA-Z0-9][a-zA-Z0-9_-]*' },
      JSON.stringify(raw),
    );
  t.equal(specOf(wf('docs', { publication: null })).visibility, 'private');
});

t.test('the default hostname is the name made one DNS label', async (t) => {
  t.equal(specOf(wf('Docs__Site')).hostname, 'docs-site', 'a run of other characters is one dash');
  t.equal(specOf(wf('docs_')).hostname, 'docs', 'no dash is left at the end');
  t.equal(specOf(wf('a'.repeat(70))).hostname, 'a'.repeat(63), 'at most 63 characters');
  // Cut at 63, the label would end in the dash between the two parts: it is dropped.
  t.equal(specOf(wf(`${'a'.repeat(62)}_b`)).hostname, 'a'.repeat(62));
});

t.test('a hostname given is one whole DNS label', async (t) => {
  const refused = 'service docs: publication.hostname must be one DNS label';
  for (const hostname of ['docs.example.com', '-docs', 'docs-', 'Docs', 'a'.repeat(64)])
    t.equal(errorOf(wf('docs', { publication: { hostname } })), refused, hostname);
  t.equal(specOf(wf('docs', { publication: { hostname: 'my-docs-2' } })).hostname, 'my-docs-2');
  t.equal(specOf(wf('docs', { publication: { hostname: 'a'.repeat(63) } })).hostname, 'a'.repeat(63));
});

t.test('visibility is private, public or tenant, in any case', async (t) => {
  t.equal(
    errorOf(wf('docs', { publication: { visibility: 'world' } })),
    'service docs: publication.visibility must be private, public or tenant',
  );
  t.equal(specOf(wf('docs', { publication: { visibility: 'Tenant' } })).visibility, 'tenant');
});

t.test('websockets are allowed only by an explicit true', async (t) => {
  t.equal(specOf(wf('docs', { publication: { allow_websockets: true } })).allowWebsockets, true);
  t.equal(specOf(wf('docs', { publication: { allow_websockets: 'true' } })).allowWebsockets, false);
});

t.test('a state root lies strictly under .gc/services/ of the city', async (t) => {
  const refused = 'service docs: state_root must stay under .gc/services/';
  const outside = [
    '/.gc/services/docs', // absolute, however it continues
    '.gc/services', // the services directory itself, shared by all
    '.gc/services/', // the same, spelled with a slash
    './.gc/services/.', // and with dots
    '.gc/state/docs',
    'srv/services/docs',
    'var/lib/docs',
    'data/docs',
    '.gc/services/../../etc',
    '.gc/services/docs/../../x',
  ];
  for (const state_root of outside) t.equal(errorOf(wf('docs', { state_root })), refused, state_root);
  // Empty and `.` segments say nothing: these are under .gc/services/, kept as written.
  for (const state_root of [
    './.gc/services/docs',
    '.gc//services/docs',
    '.gc/./services/docs/',
    '.gc/services/a/b',
  ])
    t.equal(specOf(wf('docs', { state_root })).stateRoot, state_root, state_root);
});

t.test('a proxy_process command needs a program', async (t) => {
  t.equal(
    errorOf({ name: 'p', kind: 'proxy_process', process: { command: ['', 'serve'] } }),
    'service p: process.command is required for a proxy_process service',
  );
});

t.test('a health path that starts with / is kept', async (t) => {
  const spec = specOf({
    name: 'p',
    kind: 'proxy_process',
    process: { command: ['srv'], health_path: '/healthz' },
  });
  t.equal(spec.healthPath, '/healthz');
  t.same(spec.command, ['srv']);
  t.notOk('healthPath' in specOf({ name: 'p', kind: 'proxy_process', process: { command: ['srv'] } }));
});

t.test('a refusal is told from a spec', async (t) => {
  t.equal(isConfigError(serviceSpecOf(wf('docs'))), false);
  t.equal(isConfigError(serviceSpecOf({ name: 'docs' })), true);
});

t.test('only a name used before makes a table a duplicate', async (t) => {
  t.same(
    serviceSpecsOf([wf('a'), wf('b'), wf('a')]).map((s) => (isConfigError(s) ? s.error : s.name)),
    ['a', 'b', 'service a is defined twice'],
  );
  // Tables with no valid name keep their own error: they are not duplicates of each other.
  const nameless = 'service name "" must match [a-zA-Z0-9][a-zA-Z0-9_-]*';
  t.same(serviceSpecsOf([{}, { kind: 'workflow' }]), [
    { name: '', error: nameless },
    { name: '', error: nameless },
  ]);
});

t.test('by default a crashed service waits 1 s, doubling up to 30 s', async (t) => {
  t.same(
    [1, 2, 3, 4, 5, 6, 10].map((n) => restartDelayMs(n, DEFAULT_RESTART_POLICY)),
    [1000, 2000, 4000, 8000, 16000, 30000, 30000],
  );
});
