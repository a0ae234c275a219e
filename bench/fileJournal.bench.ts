/**
 * Append throughput of the file journal: pipelined (many appends in flight, group-committed) and
 * sequential (each append awaited). Run: `node --import tsx bench/fileJournal.bench.ts [events]`.
 * Effects: writes a log under a temp dir, removes it afterwards, prints one JSON line per mode.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileJournalBackend } from '../actors/runtime/journal/fileJournal.ts';
import type { FileJournalOptions } from '../actors/runtime/journal/fileJournal.ts';

const events = Number(process.argv[2] ?? 100_000);
const payload = { bead: { id: 'gc-1', issue_type: 'task', title: 'a typical small payload' } };

async function measure(mode: 'pipelined' | 'sequential', options: FileJournalOptions): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-bench-'));
  const backend = new FileJournalBackend(options);
  try {
    const journal = await backend.open({ name: 'bench', file: join(dir, '.gc', 'events.jsonl') });
    const n = mode === 'pipelined' ? events : Math.min(events, 20_000);
    const draft = { type: 'bead.created', actor: 'bench', subject: 'gc-1', payload };
    const started = process.hrtime.bigint();
    if (mode === 'pipelined') {
      await Promise.all(Array.from({ length: n }, () => journal.append(draft)));
    } else {
      for (let i = 0; i < n; i++) await journal.append(draft);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const perSecond = Math.round(n / seconds);
    console.log(JSON.stringify({ mode, fsync: options.fsync ?? 'never', events: n, seconds, perSecond }));
  } finally {
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
}

for (const fsync of ['never', 'batch'] as const) {
  await measure('pipelined', { fsync });
  await measure('sequential', { fsync });
}
