import t from 'tap';
import type { JournalEvent } from '../actors/runtime/journal/journal.ts';
import { MemoryJournalBackend } from '../actors/runtime/journal/memoryJournal.ts';
import { journalConformance } from './conformance/journalConformance.ts';

const store = new Map<string, JournalEvent[]>();
let n = 0;
journalConformance(t, {
  backend: async () => new MemoryJournalBackend(store),
  location: () => ({ name: `city${++n}`, file: `/mem/city${n}/.gc/events.jsonl` }),
});
