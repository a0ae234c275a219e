import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { normalizeBootstrapProfile } from '../../actors/config/providers.ts';
import CityCreate from '../../cli/commands/city/create.ts';
import { BOOTSTRAP_PROFILES } from '../../schemas/bootstrapProfiles.ts';
import { CityCreateRequest } from '../../schemas/cities.ts';

/**
 * The bootstrap profiles a create may name are listed once, in schemas/: the request schema's enum (and so
 * the OpenAPI document), the supervisor's normalization and the CLI's `--bootstrap-profile` choices all
 * take them from there, so none can drift from the others.
 */

const ROOT = join(import.meta.dirname, '..', '..');

t.test('the schema, the supervisor and the CLI accept exactly the one list', async (t) => {
  const schema = CityCreateRequest.properties.bootstrap_profile as { enum?: unknown };
  t.same(schema.enum, BOOTSTRAP_PROFILES, 'schema enum');
  t.equal(CityCreate.flags['bootstrap-profile'].options, BOOTSTRAP_PROFILES, 'the CLI flag holds no copy');
  for (const profile of BOOTSTRAP_PROFILES) {
    t.ok(normalizeBootstrapProfile(profile), `the supervisor normalizes ${profile}`);
  }
  for (const other of ['K8S-cell', 'k8s', 'single-host', '', 'toString']) {
    t.equal(normalizeBootstrapProfile(other), undefined, `${JSON.stringify(other)} is not a profile`);
  }
});

/** Every non-test TypeScript source of the project, relative to the root. */
async function sources(): Promise<string[]> {
  const out: string[] = [];
  for (const dir of ['schemas', 'machines', 'actors', 'http', 'cli', 'bench']) {
    for (const entry of await readdir(join(ROOT, dir), { recursive: true })) {
      if (entry.endsWith('.ts')) out.push(join(dir, entry));
    }
  }
  return out;
}

t.test('no source outside schemas/bootstrapProfiles.ts spells a profile name', async (t) => {
  const spelled: string[] = [];
  for (const file of await sources()) {
    const text = await readFile(join(ROOT, file), 'utf8');
    if (/['"`](single-host-compat|kubernetes-cell)['"`]/.test(text)) spelled.push(file);
  }
  t.same(spelled, [join('schemas', 'bootstrapProfiles.ts')]);
});
