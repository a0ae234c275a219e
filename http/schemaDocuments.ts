import { loadConfig } from '../actors/supervisor/supervisorConfig.ts';
import { detachedSupervisor } from '../actors/supervisor/detachedSupervisor.ts';
import { SUPERVISOR_LOG } from '../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../actors/runtime/journal/memoryJournal.ts';
import { LiveCities } from '../actors/supervisor/liveCities.ts';
import { eventLineSchema } from '../schemas/eventLineSchema.ts';
import { buildApp } from './app.ts';

/** The published schema files, by file name, as their exact text (2-space JSON, trailing newline). */
export interface SchemaDocuments {
  'openapi.json': string;
  'events.json': string;
}

const text = (doc: unknown): string => `${JSON.stringify(doc, null, 2)}\n`;

/**
 * Generates `openapi.json` (from the routes' own schemas, via a throwaway app over in-memory journals: the
 * document depends on the routes, never on data) and `events.json`.
 * Effects: builds and closes an app; no listening, no disk.
 */
export async function schemaDocuments(): Promise<SchemaDocuments> {
  const cities = new LiveCities(new MemoryJournal(SUPERVISOR_LOG));
  const app = await buildApp({
    config: loadConfig({ GC_HOME: '/nonexistent-gc-home' }),
    cities,
    readOnly: false,
    supervisor: detachedSupervisor(cities),
  });
  try {
    await app.ready();
    return { 'openapi.json': text(app.swagger()), 'events.json': text(eventLineSchema()) };
  } finally {
    await app.close();
  }
}
