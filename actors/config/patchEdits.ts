/**
 * The patches family: `[[patches.agent]]` (keyed by dir + name), `[[patches.providers]]` and
 * `[[patches.rigs]]` (keyed by name) in city.toml. Patches override whatever layer defined their target
 * and survive pack updates. The edits are ConfigEdits of the one writer; the records are upstream's Go
 * shapes (PascalCase, `null` for what a patch does not set).
 */
import { strOf, tableOf, tablesOf, textOf, type Table } from '../../machines/config/layers.ts';
import {
  AGENT_PATCH_FIELDS,
  POOL_FIELDS,
  PROVIDER_PATCH_FIELDS,
  RIG_PATCH_FIELDS,
  type PatchRecord,
} from '../../schemas/patches.ts';
import type { ConfigChangedPayload } from '../../schemas/configEvents.ts';
import { NotFoundError, ValidationError } from '../runtime/errors.ts';
import type { ConfigEdit } from './configWriter.ts';

export type PatchKind = 'agent' | 'provider' | 'rig';

/** The TOML array of each kind under `[patches]`. */
const ARRAY: Record<PatchKind, string> = { agent: 'agent', provider: 'providers', rig: 'rigs' };
const EVENT_KIND: Record<PatchKind, ConfigChangedPayload['kind']> = {
  agent: 'agent_patch',
  provider: 'provider_patch',
  rig: 'rig_patch',
};
const ANSWER_KEY: Record<PatchKind, 'agent_patch' | 'provider_patch' | 'rig_patch'> = EVENT_KIND as never;

/** `WorkDir` → `work_dir`, `MCPAppend` → `mcp_append`, `ACPArgs` → `acp_args`. Pure. */
export const snakeOf = (pascal: string): string =>
  pascal
    .replace(/MCP/g, 'Mcp')
    .replace(/ACP/g, 'Acp')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();

/** A patch's key: `dir/name` (agents), `name` (providers, rigs). Pure. */
export const patchKey = (kind: PatchKind, t: Table): string =>
  kind === 'agent' && strOf(t.dir) ? `${textOf(t.dir)}/${textOf(t.name)}` : textOf(t.name);

const stringMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(tableOf(v)).map(([k, x]) => [k, textOf(x)]));

function fill(out: PatchRecord, fields: Record<string, string>, t: Table): void {
  for (const pascal of Object.keys(fields)) {
    const v = t[snakeOf(pascal)];
    out[pascal] = v === undefined ? null : typeof v === 'bigint' ? Number(v) : v;
  }
}

/** The wire record of a patch table. Pure. */
export function patchRecord(kind: PatchKind, t: Table): PatchRecord {
  const out: PatchRecord = { Name: textOf(t.name) };
  if (kind === 'agent') {
    out.Dir = textOf(t.dir);
    out.Env = stringMap(t.env);
    out.OptionDefaults = stringMap(t.option_defaults);
    const pool: PatchRecord = {};
    fill(pool, POOL_FIELDS, tableOf(t.pool));
    out.Pool = pool;
    fill(out, AGENT_PATCH_FIELDS, t);
  } else if (kind === 'provider') {
    out.Env = stringMap(t.env);
    out.Replace = t._replace === true;
    fill(out, PROVIDER_PATCH_FIELDS, t);
  } else {
    out.FormulaVars = stringMap(t.formula_vars);
    fill(out, RIG_PATCH_FIELDS, t);
  }
  return out;
}

/** The patch tables of a kind in a raw city.toml. Pure. */
export const patchTables = (doc: Table, kind: PatchKind): Table[] =>
  tablesOf(tableOf(doc.patches)[ARRAY[kind]]);

function setTables(doc: Table, kind: PatchKind, tables: Table[]): void {
  const patches = { ...tableOf(doc.patches) };
  if (tables.length > 0) patches[ARRAY[kind]] = tables;
  else delete patches[ARRAY[kind]];
  if (Object.keys(patches).length > 0) doc.patches = patches;
  else delete doc.patches;
}

/**
 * PUT /patches/<kind>s: creates the patch of the body's target, or merges the body's fields into it
 * (`env` merges key by key). 422 naming `body.name` without a name; the writer refuses a target that is in
 * no layer (422 naming `patches.<kind>[i]`).
 */
export function putPatch(
  actor: string,
  kind: PatchKind,
  body: Table,
): ConfigEdit<{ status: 'ok' } & Record<string, string>> {
  return (doc) => {
    if (!strOf(body.name)) {
      throw new ValidationError('name: the patch target is required', null, {
        errors: [{ location: 'body.name', message: 'required', value: body.name }],
      });
    }
    const fields = Object.fromEntries(
      Object.entries(body).filter(
        ([k, v]) => v !== undefined && !(kind === 'agent' && k === 'dir' && v === ''),
      ),
    );
    const key = patchKey(kind, fields);
    const tables = patchTables(doc, kind);
    const i = tables.findIndex((t) => patchKey(kind, t) === key);
    const merged: Table = i < 0 ? { ...fields } : { ...tables[i], ...fields };
    if (i >= 0 && fields.env) merged.env = { ...tableOf(tables[i]!.env), ...tableOf(fields.env) };
    for (const [k, v] of Object.entries(merged)) if (v === null) delete merged[k];
    setTables(doc, kind, i < 0 ? [...tables, merged] : tables.map((t, j) => (j === i ? merged : t)));
    return {
      record: {
        type: 'config.changed',
        actor,
        subject: `patches/${kind}/${key}`,
        payload: {
          source: 'api',
          kind: EVENT_KIND[kind],
          op: i < 0 ? 'created' : 'updated',
          target: key,
          fields,
          valid: true,
        },
      },
      result: { status: 'ok', [ANSWER_KEY[kind]]: key },
    };
  };
}

/** DELETE /patches/<kind>/{key}: removes the patch. 404 when there is none. */
export function deletePatch(
  actor: string,
  kind: PatchKind,
  key: string,
): ConfigEdit<{ status: 'deleted' } & Record<string, string>> {
  return (doc) => {
    const tables = patchTables(doc, kind);
    if (!tables.some((t) => patchKey(kind, t) === key))
      throw new NotFoundError(`${kind} patch ${JSON.stringify(key)} not found`);
    setTables(
      doc,
      kind,
      tables.filter((t) => patchKey(kind, t) !== key),
    );
    return {
      record: {
        type: 'config.changed',
        actor,
        subject: `patches/${kind}/${key}`,
        payload: { source: 'api', kind: EVENT_KIND[kind], op: 'deleted', target: key, valid: true },
      },
      result: { status: 'deleted', [ANSWER_KEY[kind]]: key },
    };
  };
}
