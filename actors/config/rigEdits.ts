/**
 * The rig edits of the one config writer: `[[rigs]]` tables of city.toml (rigs are never pack-derived).
 * Each is a ConfigEdit that throws the catalogue's errors to refuse.
 */
import { tablesOf, type Table } from '../../machines/config/layers.ts';
import type { RigCreateInputBody, RigUpdateInputBody } from '../../schemas/rigs.ts';
import { ConflictError, NotFoundError } from '../runtime/errors.ts';
import type { ConfigEdit } from './configWriter.ts';

const clean = (body: object): Table =>
  Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));

/** POST /rigs: appends a `[[rigs]]`. 409 for a name in use. */
export function createRig(actor: string, body: RigCreateInputBody): ConfigEdit<string> {
  return (doc) => {
    const rigs = tablesOf(doc.rigs);
    if (rigs.some((r) => r.name === body.name)) throw new ConflictError(`rig ${body.name} already exists`);
    const fields = clean(body);
    doc.rigs = [...rigs, fields];
    return {
      record: {
        type: 'config.changed',
        actor,
        subject: `rig/${body.name}`,
        payload: { source: 'api', kind: 'rig', op: 'created', target: body.name, fields, valid: true },
      },
      result: body.name,
    };
  };
}

/** PATCH /rig/{name} (and suspend/resume): sets the given keys. 404 for an unknown rig. */
export function updateRig(actor: string, name: string, body: RigUpdateInputBody): ConfigEdit<void> {
  return (doc) => {
    const rigs = tablesOf(doc.rigs);
    if (!rigs.some((r) => r.name === name)) throw new NotFoundError(`rig ${JSON.stringify(name)} not found`);
    const fields = clean(body);
    doc.rigs = rigs.map((r) => (r.name === name ? { ...r, ...fields } : r));
    return {
      record: {
        type: 'config.changed',
        actor,
        subject: `rig/${name}`,
        payload: { source: 'api', kind: 'rig', op: 'updated', target: name, fields, valid: true },
      },
      result: undefined,
    };
  };
}

/** DELETE /rig/{name}: removes its `[[rigs]]`. 404 for an unknown rig. */
export function deleteRig(actor: string, name: string): ConfigEdit<void> {
  return (doc) => {
    const rigs = tablesOf(doc.rigs);
    if (!rigs.some((r) => r.name === name)) throw new NotFoundError(`rig ${JSON.stringify(name)} not found`);
    const rest = rigs.filter((r) => r.name !== name);
    if (rest.length > 0) doc.rigs = rest;
    else delete doc.rigs;
    return {
      record: {
        type: 'config.changed',
        actor,
        subject: `rig/${name}`,
        payload: { source: 'api', kind: 'rig', op: 'deleted', target: name, valid: true },
      },
      result: undefined,
    };
  };
}
