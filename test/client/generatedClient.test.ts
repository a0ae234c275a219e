import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import t from 'tap';
import { startTestSupervisor } from '../helpers/supervisor.ts';
import { EVENTS_CLIENT_PROGRAM } from './eventsClientProgram.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** Strict settings a careful client project would use; the program imports the generated `./api.ts`. */
const CLIENT_TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
  },
  files: ['client.ts'],
};

/** Runs `node <args>` in `cwd` without blocking this process (the supervisor under test lives in it). */
async function node(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, {
      cwd,
      env: { ...process.env, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

t.test(
  'a client generated from the served document typechecks strictly, creates a city and narrows its events',
  async (t) => {
    const s = await startTestSupervisor(t);
    const res = await fetch(`${s.url}/openapi.json`);
    t.equal(res.status, 200);
    const types = astToString(await openapiTS((await res.json()) as Parameters<typeof openapiTS>[0]));

    const work = mkdtempSync(join(tmpdir(), 'gc-client-'));
    t.teardown(() => rmSync(work, { recursive: true, force: true }));
    // The program resolves openapi-fetch, typescript and @types/node as a project with them installed would.
    symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
    writeFileSync(join(work, 'api.ts'), types);
    writeFileSync(join(work, 'client.ts'), EVENTS_CLIENT_PROGRAM);
    writeFileSync(join(work, 'tsconfig.json'), JSON.stringify(CLIENT_TSCONFIG, null, 2));
    writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));

    const tsc = await node([join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', work], work);
    t.equal(tsc.stdout.trim(), '', 'tsc reports nothing');
    t.equal(tsc.code, 0, 'the program typechecks against the generated types');
    if (tsc.code !== 0) return;

    const dir = join(s.home, 'generated-client-city');
    const out = await node(['--import', 'tsx', join(work, 'client.ts')], work, {
      GC_URL: s.url,
      CITY_DIR: dir,
    });
    t.equal(out.code, 0, `the program ran (${out.stderr.trim()})`);
    const found = JSON.parse(out.stdout.trim()) as {
      requestId: string;
      terminal: { type: string; request_id: string; city: string };
      createdPaths: string[];
    };
    t.match(found.requestId, /^req-/);
    t.same(
      found.terminal,
      { type: 'request.result.city.create', request_id: found.requestId, city: 'generated-client-city' },
      'it found the terminal event of its own request, through the narrowed payload',
    );
    t.same(found.createdPaths, [dir], 'and the city.created path, through the narrowed city event payload');
  },
);
