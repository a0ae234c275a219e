/**
 * Transcript readers on hand-written logs in each provider's documented format (test/fixtures/transcripts):
 * the Claude parent-chain DAG (active tip, abandoned branch, sidechain, compaction through logicalParentUuid
 * and the previous-line fallback), pages (tail, before, after, limit), raw frames verbatim, Codex and
 * Gemini conversions, activity, and the bounded read of a large log.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { activityOf, logActivity } from '../../actors/sessions/transcript/activity.ts';
import { readClaudePage, UnknownCursorError } from '../../actors/sessions/transcript/claudeReader.ts';
import { codexCwd, codexEntries } from '../../actors/sessions/transcript/codexLog.ts';
import { geminiEntries } from '../../actors/sessions/transcript/geminiLog.ts';
import { parseClaudeLine, type LogEntry } from '../../actors/sessions/transcript/logEntry.ts';
import { readLogPage } from '../../actors/sessions/transcript/sessionTranscripts.ts';
import { turnOf } from '../../actors/sessions/transcript/turns.ts';
import { LogFollower } from '../../actors/sessions/transcript/logFollower.ts';

const FIX = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'transcripts');
const DAG = join(FIX, 'claude-dag.jsonl');
const base = { format: 'conversation' as const, tail: 0, limit: 500 };
const uuids = (entries: LogEntry[]) => entries.map((e) => e.uuid);

t.test(
  'the active chain: latest tip, abandoned branch and sidechain left out, compactions crossed',
  async (t) => {
    const { page } = await readClaudePage(DAG, base);
    t.same(uuids(page.entries), ['u1', 'a1', 'r1', 'a2', 'c1', 'u2', 'a3', 'c2', 'u3', 'a4']);
    t.same(page.pagination, {
      has_older_messages: false,
      total_message_count: 10,
      returned_message_count: 10,
      total_compactions: 2,
    });
    t.same(
      page.entries.slice(0, 4).map(turnOf),
      [
        { role: 'user', text: 'build the parser', timestamp: '2026-04-01T10:00:00.000Z' },
        {
          role: 'assistant',
          text: '[thinking]\nReading the grammar.\n[Read]',
          timestamp: '2026-04-01T10:00:01.000Z',
        },
        { role: 'user', text: '[result] expr := term', timestamp: '2026-04-01T10:00:02.000Z' },
        { role: 'assistant', text: 'Parser written.', timestamp: '2026-04-01T10:00:04.000Z' },
      ],
      'thinking redacted, tool calls named, results prefixed, a double-encoded message read',
    );
    t.equal(turnOf(page.entries[4]!)?.text, 'Conversation compacted');
  },
);

t.test('tail counts compaction segments from the end, inclusive of the boundary', async (t) => {
  const one = (await readClaudePage(DAG, { ...base, tail: 1 })).page;
  t.same(uuids(one.entries), ['c2', 'u3', 'a4']);
  t.equal(one.pagination.has_older_messages, true);
  t.equal(one.pagination.truncated_before_message, 'c2');
  const two = (await readClaudePage(DAG, { ...base, tail: 2 })).page;
  t.same(uuids(two.entries), ['c1', 'u2', 'a3', 'c2', 'u3', 'a4']);
});

t.test(
  'before cuts first, then tail; after gives the oldest messages after the cursor; limit keeps the newest',
  async (t) => {
    t.same(uuids((await readClaudePage(DAG, { ...base, before: 'u3' })).page.entries), [
      'u1',
      'a1',
      'r1',
      'a2',
      'c1',
      'u2',
      'a3',
      'c2',
    ]);
    t.same(uuids((await readClaudePage(DAG, { ...base, before: 'u3', tail: 1 })).page.entries), ['c2']);
    t.same(uuids((await readClaudePage(DAG, { ...base, before: 'u3', tail: 2 })).page.entries), [
      'c1',
      'u2',
      'a3',
      'c2',
    ]);
    t.same(uuids((await readClaudePage(DAG, { ...base, after: 'u2' })).page.entries), [
      'a3',
      'c2',
      'u3',
      'a4',
    ]);
    t.same(uuids((await readClaudePage(DAG, { ...base, after: 'u2', limit: 2 })).page.entries), ['a3', 'c2']);
    const limited = (await readClaudePage(DAG, { ...base, limit: 3 })).page;
    t.same(uuids(limited.entries), ['c2', 'u3', 'a4']);
    t.match(limited.pagination, {
      has_older_messages: true,
      truncated_before_message: 'c2',
      returned_message_count: 3,
    });
    await t.rejects(readClaudePage(DAG, { ...base, before: 'nope' }), UnknownCursorError);
    await t.rejects(readClaudePage(DAG, { ...base, after: 'nope' }), UnknownCursorError);
  },
);

t.test('raw keeps every chain entry as the provider wrote it', async (t) => {
  const { page } = await readClaudePage(DAG, { ...base, format: 'raw' });
  t.same(uuids(page.entries), ['u1', 'a1', 'r1', 'a2', 'd1', 'c1', 'u2', 'a3', 'c2', 'u3', 'a4']);
  const lines = readFileSync(DAG, 'utf8').split('\n');
  for (const e of page.entries) t.ok(lines.includes(e.raw), `${e.uuid} verbatim`);
});

t.test('a torn last line is left out, and the reader says where a follower continues', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'torn.jsonl');
  const text = readFileSync(DAG, 'utf8');
  writeFileSync(path, text + '{"type":"user","uuid":"half');
  const read = await readClaudePage(path, base);
  t.equal(read.end, Buffer.byteLength(text));
  t.equal(read.page.entries.at(-1)?.uuid, 'a4');
});

t.test('a large log is read from its end, a chunk at a time, and pages back with before', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'big.jsonl');
  const lines: string[] = [];
  let parent: string | null = null;
  const pad = 'x'.repeat(900);
  for (let i = 0; i < 4000; i++) {
    const uuid = `m${i}`;
    const type = i % 2 === 0 ? 'user' : 'assistant';
    lines.push(
      JSON.stringify({
        type,
        uuid,
        parentUuid: parent,
        timestamp: new Date(1e12 + i * 1000).toISOString(),
        message: { role: type, content: `${i} ${pad}` },
      }),
    );
    parent = uuid;
  }
  writeFileSync(path, lines.join('\n') + '\n');
  const opts = { chunkBytes: 64 * 1024, exactBytes: 1024 };
  const first = await readClaudePage(path, { ...base, limit: 20 }, opts);
  t.same(
    uuids(first.page.entries),
    Array.from({ length: 20 }, (_, i) => `m${3980 + i}`),
  );
  t.equal(first.page.pagination.has_older_messages, true);
  t.ok(first.page.pagination.total_message_count < 4000, 'a lower bound: the read stopped early');
  const second = await readClaudePage(path, { ...base, limit: 20, before: 'm3980' }, opts);
  t.same(
    uuids(second.page.entries),
    Array.from({ length: 20 }, (_, i) => `m${3960 + i}`),
  );
  const exact = await readClaudePage(path, { ...base, limit: 20 });
  t.equal(exact.page.pagination.total_message_count, 4000, 'small enough to be read whole: exact totals');
  const oldest = await readClaudePage(path, { ...base, limit: 5, before: 'm5' }, opts);
  t.same(uuids(oldest.page.entries), ['m0', 'm1', 'm2', 'm3', 'm4']);
  t.equal(oldest.page.pagination.has_older_messages, false);
});

t.test(
  'Codex rollouts: the work dir from session_meta, messages, calls and results, synthetic ids',
  async (t) => {
    const text = readFileSync(join(FIX, 'codex-rollout.jsonl'), 'utf8');
    t.equal(codexCwd(text.split('\n')[0]!), '/work/app');
    const { page } = await readLogPage({ path: join(FIX, 'codex-rollout.jsonl'), family: 'codex' }, base);
    t.same(
      page.entries.map(turnOf).map((x) => x && [x.role, x.text]),
      [
        ['user', 'list the files'],
        ['assistant', '[thinking]'],
        ['assistant', '[shell]'],
        ['user', '[result] {"output":"a.txt\\nb.txt\\n","metadata":{"exit_code":0}}'],
        ['assistant', 'Two files: a.txt and b.txt.'],
      ],
    );
    t.same(uuids(page.entries), ['codex-3', 'codex-5', 'codex-6', 'codex-7', 'codex-8']);
    const after = await readLogPage(
      { path: join(FIX, 'codex-rollout.jsonl'), family: 'codex' },
      { ...base, after: 'codex-6' },
    );
    t.same(uuids(after.page.entries), ['codex-7', 'codex-8']);
    t.equal(codexEntries('not json\n').length, 0);
  },
);

t.test('Gemini chats: user and model turns, thoughts and tool calls, raw messages as written', async (t) => {
  const path = join(FIX, 'gemini-chat.json');
  const { page } = await readLogPage({ path, family: 'gemini' }, base);
  t.same(
    page.entries.map(turnOf).map((x) => x && [x.role, x.text]),
    [
      ['user', 'what is in README?'],
      ['assistant', '[thinking]\nIt describes the build.\n[read_file]'],
      ['system', 'Session saved.'],
    ],
  );
  const raw = await readLogPage({ path, family: 'gemini' }, { ...base, format: 'raw' });
  t.match(JSON.parse(raw.page.entries[1]!.raw), { id: 'm2', model: 'gemini-2.5-pro' });
  t.same(geminiEntries('[]'), []);
});

t.test('activity: turn_duration and stop reasons decide, an interrupt ends the turn', async (t) => {
  const e = (o: object) => parseClaudeLine(JSON.stringify(o))!;
  const user = e({ type: 'user', uuid: 'u', message: { content: 'go' } });
  const tool = e({ type: 'assistant', uuid: 'a', message: { content: [], stop_reason: 'tool_use' } });
  const done = e({ type: 'assistant', uuid: 'b', message: { content: [], stop_reason: 'end_turn' } });
  const streaming = e({ type: 'assistant', uuid: 'c', message: { content: [] } });
  const interrupted = e({ type: 'user', uuid: 'i', message: { content: '[Request interrupted by user]' } });
  const duration = e({ type: 'system', subtype: 'turn_duration', uuid: 'd' });
  t.equal(activityOf([user]), 'in-turn');
  t.equal(activityOf([user, tool]), 'in-turn');
  t.equal(activityOf([user, done]), 'idle');
  t.equal(activityOf([user, streaming]), undefined);
  t.equal(activityOf([user, interrupted]), 'idle');
  t.equal(activityOf([user, tool, duration]), 'idle');
  t.equal(await logActivity(DAG), 'idle');
  t.equal(await logActivity(join(t.testdir(), 'none.jsonl')), undefined);
});

t.test('the follower reads only appended whole lines and sees a replaced log as a reset', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'f.jsonl');
  writeFileSync(path, '{"a":1}\n');
  let wakes = 0;
  const f = new LogFollower(path, 8, () => wakes++, { pollMs: 20 });
  await f.start();
  t.teardown(() => f.close());
  t.equal(f.mode, 'watch');
  appendFileSync(path, '{"b":2}\n{"c":');
  t.same(await f.read(), { kind: 'lines', lines: ['{"b":2}'] });
  appendFileSync(path, '3}\n');
  t.same(await f.read(), { kind: 'lines', lines: ['{"c":3}'] });
  writeFileSync(path, '');
  t.same(await f.read(), { kind: 'reset' });
  const deadline = Date.now() + 5000;
  while (wakes === 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
  t.ok(wakes > 0, 'the watch woke the follower');
});
