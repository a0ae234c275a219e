/**
 * The provider edits of the one config writer: each is a ConfigEdit on city.toml's raw document that
 * throws the catalogue's errors to refuse. `[providers.<name>]` tables are written with upstream's keys.
 */
import { strOf, tableOf, type Table } from '../../machines/config/layers.ts';
import { isCityLevelProvider } from '../../machines/config/resolveProvider.ts';
import type { ProviderCreateInputBody, ProviderUpdateInputBody } from '../../schemas/providers.ts';
import { ConflictError, NotFoundError, ValidationError } from '../runtime/errors.ts';
import { isBuiltinProvider } from './providers.ts';
import type { ConfigEdit } from './configWriter.ts';

/** The body's fields as TOML keys (a `null` list clears the key). */
function fieldsOf(body: ProviderUpdateInputBody): Table {
  return Object.fromEntries(Object.entries(body).filter(([k, v]) => k !== 'name' && v !== undefined));
}

function put(doc: Table, name: string, fields: Table): void {
  const providers = tableOf(doc.providers);
  const table = { ...tableOf(providers[name]) };
  for (const [k, v] of Object.entries(fields)) {
    if (v === null) delete table[k];
    else table[k] = v;
  }
  doc.providers = { ...providers, [name]: table };
}

/** POST /providers: a new `[providers.<name>]`. 409 for a name in use; 422 without command or base. */
export function createProvider(actor: string, body: ProviderCreateInputBody): ConfigEdit<string> {
  return (doc, current) => {
    if (Object.hasOwn(current.composed.providers, body.name)) {
      throw new ConflictError(
        `provider ${body.name} already exists${isBuiltinProvider(body.name) ? ' (builtin)' : ''}`,
      );
    }
    if (!strOf(body.command) && !strOf(body.base)) {
      throw new ValidationError(`provider ${JSON.stringify(body.name)}: command is required`, null, {
        errors: [{ location: 'body.command', message: 'command is required (or base)' }],
      });
    }
    const fields = fieldsOf(body);
    put(doc, body.name, fields);
    return {
      record: {
        type: 'config.changed',
        actor,
        subject: `provider/${body.name}`,
        payload: { source: 'api', kind: 'provider', op: 'created', target: body.name, fields, valid: true },
      },
      result: body.name,
    };
  };
}

/** PATCH /provider/{name}: sets the given keys (a builtin gets a city override). 404 for an unknown name. */
export function updateProvider(actor: string, name: string, body: ProviderUpdateInputBody): ConfigEdit<void> {
  return (doc, current) => {
    if (!Object.hasOwn(current.composed.providers, name))
      throw new NotFoundError(`provider ${JSON.stringify(name)} not found`);
    const fields = fieldsOf(body);
    put(doc, name, fields);
    return {
      record: {
        type: 'config.changed',
        actor,
        subject: `provider/${name}`,
        payload: { source: 'api', kind: 'provider', op: 'updated', target: name, fields, valid: true },
      },
      result: undefined,
    };
  };
}

/**
 * DELETE /provider/{name}: removes the city's `[providers.<name>]`. A builtin without a city override
 * cannot be deleted (409); one with an override goes back to its builtin spec. A provider only a pack
 * defines is the pack's (409: patch it instead). 404 for an unknown name.
 */
export function deleteProvider(actor: string, name: string): ConfigEdit<void> {
  return (doc, current) => {
    if (!Object.hasOwn(current.composed.providers, name))
      throw new NotFoundError(`provider ${JSON.stringify(name)} not found`);
    const providers = tableOf(doc.providers);
    if (!Object.hasOwn(providers, name)) {
      if (isBuiltinProvider(name) && !isCityLevelProvider(current.composed, name))
        throw new ConflictError(`provider ${name} is builtin and cannot be deleted`);
      throw new ConflictError(`provider ${name} is not defined in city.toml (a pack or patch defines it)`);
    }
    const rest = { ...providers };
    delete rest[name];
    if (Object.keys(rest).length > 0) doc.providers = rest;
    else delete doc.providers;
    return {
      record: {
        type: 'config.changed',
        actor,
        subject: `provider/${name}`,
        payload: { source: 'api', kind: 'provider', op: 'deleted', target: name, valid: true },
      },
      result: undefined,
    };
  };
}
