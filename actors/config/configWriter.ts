/**
 * The one writer of a city's `city.toml`: every API edit (agents, providers, rigs, patches) goes through it,
 * one at a time. An edit parses the file, applies a pure change to the document, validates the result
 * (refusing any error the file did not already have), writes it beside the file and renames it into place
 * while the previous file is kept (`city.toml.prev.<write id>`) until the change's event is durable in the
 * city log. If the event cannot be recorded the previous file is put back, so a failed write changes
 * nothing. A crash between the rename and the event is settled at the next start (`settlePendingWrite`).
 * An edit made to the file by hand is picked up (`check`) and recorded as `config.changed` with source
 * `file`.
 */
import { randomUUID } from 'node:crypto';
import { link, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { stringify } from 'smol-toml';
import { recordOf } from '../../machines/recorded.ts';
import { renderProblem } from '../../machines/config/problems.ts';
import type { Table } from '../../machines/config/layers.ts';
import type { ConfigChangedPayload } from '../../schemas/configEvents.ts';
import type { AgentConfigChangedPayload } from '../../schemas/ourEventPayloads.ts';
import { cityTomlPath } from './cityConfig.ts';
import { ValidationError } from '../runtime/errors.ts';
import type { Journal } from '../runtime/journal/journal.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import { effectiveConfigOf, sha256, type EffectiveConfig } from './effectiveConfig.ts';

const PREV = 'city.toml.prev.';
const NEXT = 'city.toml.next.';

/** The event types a config write records (each carries its `write_id`). */
export const CONFIG_EVENT_TYPES = ['config.changed', 'agent.config_changed'] as const;

/** What a change records, before the writer adds the write id and the new file's hash. */
export type ConfigRecord =
  | {
      type: 'config.changed';
      actor: string;
      subject: string;
      payload: Omit<ConfigChangedPayload, 'write_id' | 'sha256'>;
    }
  | {
      type: 'agent.config_changed';
      actor: string;
      subject: string;
      payload: Omit<AgentConfigChangedPayload, 'write_id' | 'sha256'>;
    };

/**
 * One edit: `edit` changes the raw document in place (it may throw NotFoundError, ConflictError or
 * ValidationError to refuse; nothing is written then) and says what to record and what to answer.
 */
export type ConfigEdit<T> = (doc: Table, current: EffectiveConfig) => { record: ConfigRecord; result: T };

export class ConfigWriter {
  #tail: Promise<unknown> = Promise.resolve();
  /** The hash of the file as last recorded (or first seen): a different one on disk is a hand edit. */
  #known: string | undefined;
  readonly #listeners = new Set<(config: EffectiveConfig) => void>();
  #last: EffectiveConfig | undefined;

  constructor(
    readonly dir: string,
    readonly cityName?: string,
  ) {}

  /** Sets the hash the file had at its last recorded change (from the log, at start). */
  setKnown(hash: string | undefined): void {
    this.#known = hash;
  }

  /** Told the new effective config after every recorded change (writes and hand edits). */
  onChange(listener: (config: EffectiveConfig) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The effective config of `text`: the last one composed when the file is what it was then (packs are
   * read again only when city.toml changed; a pack edited on its own is seen at the next file change).
   */
  async #composed(text: string): Promise<EffectiveConfig> {
    if (this.#last && this.#last.sha256 === sha256(text)) return this.#last;
    this.#last = await effectiveConfigOf(this.dir, text, this.cityName);
    return this.#last;
  }

  /** Runs `work` after every write and check queued before it. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(work);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Applies `edit`, validates, writes, records through `log`. Resolves with the new config and the edit's
   * result. @throws what `edit` throws; ValidationError (422, `errors` naming file and field) when the new
   * config has an error the old one did not; what the log throws. The file is then as it was.
   */
  write<T>(log: LogRuntime, edit: ConfigEdit<T>): Promise<{ config: EffectiveConfig; result: T }> {
    return this.#serial(async () => {
      const file = cityTomlPath(this.dir);
      const text = await readFile(file, 'utf8');
      const current = await this.#composed(text);
      const doc = structuredClone(current.raw);
      const { record, result } = edit(doc, current);
      const next = `${stringify(doc)}\n`;
      const config = await effectiveConfigOf(this.dir, next, this.cityName);
      refuseNewErrors(current, config);
      const writeId = randomUUID();
      const prev = join(this.dir, `${PREV}${writeId}`);
      const tmp = join(this.dir, `${NEXT}${writeId}`);
      await writeSynced(tmp, next);
      // A second name for the current file (no copy): the rename below leaves it holding the old content.
      await link(file, prev);
      await rename(tmp, file);
      try {
        await log.run(() => ({
          records: [
            recordOf({
              ...record,
              payload: { ...record.payload, write_id: writeId, sha256: config.sha256 },
            } as Parameters<typeof recordOf>[0]),
          ],
          commit: () => undefined,
        }));
      } catch (err) {
        await rename(prev, file);
        throw err;
      }
      await rm(prev, { force: true });
      this.#known = config.sha256;
      this.#last = config;
      this.#notify(config);
      return { config, result };
    });
  }

  /**
   * Picks up a hand edit: when the file's hash is not the last recorded one, records `config.changed`
   * (source `file`, with the new config's errors) and resolves with the new config; else undefined. The
   * first look of a writer that knows no hash only learns it. A file that is not valid TOML is recorded
   * as invalid and the last good config stays in use. Effects: reads the file; appends to the log.
   */
  check(log: LogRuntime, actor = 'gc'): Promise<EffectiveConfig | undefined> {
    return this.#serial(async () => {
      let text: string;
      try {
        text = await readFile(cityTomlPath(this.dir), 'utf8');
      } catch {
        return undefined; // gone (the city is being removed): nothing to record
      }
      const hash = sha256(text);
      if (hash === this.#known) return undefined;
      const first = this.#known === undefined;
      this.#known = hash;
      let config: EffectiveConfig | undefined;
      let errors: string[];
      try {
        config = await effectiveConfigOf(this.dir, text, this.cityName);
        errors = config.problems.filter((p) => p.severity === 'error').map(renderProblem);
      } catch (err) {
        errors = [(err as Error).message];
      }
      if (first) return undefined;
      await recordHandEdit(log, actor, { label: 'city.toml', sha256: hash, errors });
      // An invalid hand edit is recorded, but the last good config stays in use.
      if (config && errors.length === 0) this.#notify(config);
      return config;
    });
  }

  /**
   * A pack file changed (`file`, relative to the city): the config is composed again with city.toml as it
   * is, and when the result differs from `current` (the one in use) it is recorded (`config.changed`, source `file`,
   * `target` the pack file) and adopted. city.toml itself changed too: its own check runs instead.
   * Effects: reads city.toml and the packs; appends to the log.
   */
  checkPacks(
    log: LogRuntime,
    file: string,
    current: EffectiveConfig,
    actor = 'gc',
  ): Promise<EffectiveConfig | undefined> {
    return this.#serial(async () => {
      let text: string;
      try {
        text = await readFile(cityTomlPath(this.dir), 'utf8');
      } catch {
        return undefined;
      }
      if (sha256(text) !== this.#known) return undefined;
      const before = fingerprint(current);
      const config = await effectiveConfigOf(this.dir, text, this.cityName);
      if (fingerprint(config) === before) return undefined;
      this.#last = config;
      const errors = config.problems.filter((p) => p.severity === 'error').map(renderProblem);
      await recordHandEdit(log, actor, { label: file, sha256: config.sha256, errors, target: file });
      if (errors.length === 0) this.#notify(config);
      return config;
    });
  }

  /** The current effective config (after the writes queued before this read). */
  read(): Promise<EffectiveConfig> {
    return this.#serial(async () =>
      effectiveConfigOf(this.dir, await readFile(cityTomlPath(this.dir), 'utf8'), this.cityName),
    );
  }

  #notify(config: EffectiveConfig): void {
    for (const listener of this.#listeners) listener(config);
  }
}

/** A write may not add errors: those the file already had do not block it (a fix may take several writes). */
function refuseNewErrors(before: EffectiveConfig, after: EffectiveConfig): void {
  const had = new Set(before.problems.filter((p) => p.severity === 'error').map(renderProblem));
  const added = after.problems.filter((p) => p.severity === 'error' && !had.has(renderProblem(p)));
  if (added.length === 0) return;
  throw new ValidationError(added.map(renderProblem).join('; '), 'invalid_config', {
    errors: added.map((p) => ({ location: `${p.file}:${p.field}`, message: p.message })),
  });
}

async function writeSynced(path: string, text: string): Promise<void> {
  const fh = await open(path, 'w', 0o644);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const writers = new Map<string, ConfigWriter>();

/**
 * The writer of the city at `dir`: one per city in this process, whoever asks (the agents and the config
 * service share it, so their writes are serialised together).
 */
export function configWriterFor(dir: string, cityName?: string): ConfigWriter {
  const key = resolve(dir);
  let writer = writers.get(key);
  if (!writer) {
    writer = new ConfigWriter(key, cityName);
    writers.set(key, writer);
  }
  return writer;
}

/**
 * After a crash mid-write: a kept previous file whose change never became an event is put back; one whose
 * event is in the log is dropped. Effects: reads the directory and the city log's config events.
 */
export async function settlePendingWrite(dir: string, journal: Journal): Promise<void> {
  const names = await readdir(dir);
  const pending = names.filter((f) => f.startsWith(PREV));
  if (pending.length > 0) {
    const recorded = new Set<string | undefined>();
    for (const type of CONFIG_EVENT_TYPES) {
      for (const e of await journal.list({ type }))
        recorded.add((e.payload as { write_id?: string } | undefined)?.write_id);
    }
    for (const name of pending) {
      const writeId = name.slice(PREV.length);
      if (recorded.has(writeId)) await rm(join(dir, name), { force: true });
      else await rename(join(dir, name), cityTomlPath(dir));
    }
  }
  for (const f of names.filter((n) => n.startsWith(NEXT))) await rm(join(dir, f), { force: true });
}

/** The hash of city.toml at the last change the log recorded, or undefined when none is recorded. */
export async function lastRecordedHash(journal: Journal): Promise<string | undefined> {
  let best: { seq: number; hash: string } | undefined;
  for (const type of CONFIG_EVENT_TYPES) {
    const [last] = await journal.list({ type, limit: 1, order: 'desc' });
    const hash = (last?.payload as { sha256?: string } | undefined)?.sha256;
    if (last && hash && (!best || last.seq > best.seq)) best = { seq: last.seq, hash };
  }
  return best?.hash;
}

/** What a pack edit can change of a city: its composed agents, sessions, providers, services, problems. */
const fingerprint = (c: EffectiveConfig): string =>
  JSON.stringify([c.city, c.composed.agents, c.composed.providers, c.problems]);

/** A hand edit of city.toml (or of the pack file `target`) as `config.changed`, source `file`. Effects: appends. */
async function recordHandEdit(
  log: LogRuntime,
  actor: string,
  edit: { label: string; sha256: string; errors: string[]; target?: string },
): Promise<void> {
  const { label, errors } = edit;
  await log.run(() => ({
    records: [
      recordOf({
        type: 'config.changed',
        actor,
        subject: 'city.toml',
        message: errors.length === 0 ? `${label} edited` : `${label} edited: ${errors.length} error(s)`,
        payload: {
          write_id: randomUUID(),
          sha256: edit.sha256,
          source: 'file',
          kind: 'file',
          op: 'edited',
          ...(edit.target !== undefined ? { target: edit.target } : {}),
          valid: errors.length === 0,
          ...(errors.length > 0 ? { errors } : {}),
        },
      }),
    ],
    commit: () => undefined,
  }));
}
