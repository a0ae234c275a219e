/**
 * The one writer of a city's `city.toml` for API edits: edits are serialised; each parses the file, applies
 * a pure edit to the document, writes the result beside it and renames it into place while the previous
 * file is kept (`city.toml.prev.<write id>`) until the change's event is durable. If the event cannot be
 * recorded the previous file is put back, so a failed write changes nothing. A crash between the rename
 * and the event is settled at the next start (`settlePendingWrite`): the log decides.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile, rename, rm, writeFile, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'smol-toml';
import { cityConfigOf, cityTomlPath, type CityConfig } from '../cityConfig.ts';
import type { Journal } from '../journal/journal.ts';

const PREV = 'city.toml.prev.';

export class CityTomlWriter {
  #tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly dir: string) {}

  /**
   * Applies `edit` to the parsed document and `record`s the change (with this write's id) once the new
   * file is in place. Resolves with the new config. @throws what `edit` or `record` throws; the file is
   * then as it was.
   */
  write(
    edit: (doc: Record<string, unknown>) => void,
    record: (writeId: string) => Promise<void>,
  ): Promise<CityConfig> {
    const run = this.#tail.then(() => this.#write(edit, record));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #write(
    edit: (doc: Record<string, unknown>) => void,
    record: (writeId: string) => Promise<void>,
  ): Promise<CityConfig> {
    const file = cityTomlPath(this.dir);
    const text = await readFile(file, 'utf8');
    const doc = parse(text) as Record<string, unknown>;
    edit(doc);
    const next = `${stringify(doc)}\n`;
    const config = cityConfigOf(parse(next));
    const writeId = randomUUID();
    const prev = join(this.dir, `${PREV}${writeId}`);
    const tmp = join(this.dir, `city.toml.next.${writeId}`);
    await writeFile(tmp, next);
    await copyFile(file, prev);
    await rename(tmp, file);
    try {
      await record(writeId);
    } catch (err) {
      await rename(prev, file);
      throw err;
    }
    await rm(prev, { force: true });
    return config;
  }
}

/**
 * After a crash mid-write: a kept previous file whose change never became an event is put back; one whose
 * event is in the log is dropped. Effects: reads the directory and the city log's config events.
 */
export async function settlePendingWrite(dir: string, journal: Journal, eventType: string): Promise<void> {
  const pending = (await readdir(dir)).filter((f) => f.startsWith(PREV));
  if (pending.length === 0) return;
  const recorded = new Set(
    (await journal.list({ type: eventType })).map(
      (e) => (e.payload as { write_id?: string } | undefined)?.write_id,
    ),
  );
  for (const name of pending) {
    const writeId = name.slice(PREV.length);
    if (recorded.has(writeId)) await rm(join(dir, name), { force: true });
    else await rename(join(dir, name), cityTomlPath(dir));
  }
  for (const f of (await readdir(dir)).filter((n) => n.startsWith('city.toml.next.'))) {
    await rm(join(dir, f), { force: true });
  }
}
