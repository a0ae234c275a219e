/**
 * Where a session's conversation log is, as upstream finds it (the agent CLI writes it; Gas City only reads):
 * Claude (and the mock agent): `<dir>/<session_key>.jsonl` under `$GC_MOCK_LOG_DIR` (mock) or
 * `$CLAUDE_CONFIG_DIR/projects/<slug>` (default `~/.claude/projects/<slug>`, slug = the absolute work dir
 * with `/` and `.` turned into `-`), else the newest `.jsonl` of that folder, refused when another open
 * session of the same provider shares the work dir; Codex: the newest `~/.codex/sessions/YYYY/MM/DD/
 * rollout-*.jsonl` whose `session_meta` names the work dir; Gemini: the newest
 * `~/.gemini/tmp/<sha256 of the work dir>/chats/session-*.json`.
 */
import { createHash } from 'node:crypto';
import { open, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { K, type SessionRecord } from '../../../machines/sessions/sessionRecord.ts';
import { codexCwd } from './codexLog.ts';

export type LogFamily = 'claude' | 'codex' | 'gemini';

export interface LogLocation {
  path: string;
  family: LogFamily;
}

export interface LocatorOptions {
  /** Home of the agent CLIs' folders (default the user's home). */
  home?: string;
  /** The sessions' extra environment and this process's (GC_MOCK_LOG_DIR, CLAUDE_CONFIG_DIR). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The open sessions, to refuse a guess between two that share a work dir. */
  openSessions?: readonly SessionRecord[];
}

/** The log family a provider writes. */
export function familyOf(provider: string): LogFamily {
  if (provider === 'codex') return 'codex';
  if (provider === 'gemini') return 'gemini';
  return 'claude';
}

/** Claude's project folder name for a work dir. Pure. */
export const claudeSlug = (workDir: string): string => workDir.replace(/[/.]/g, '-');

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function newest(dir: string, match: (name: string) => boolean): Promise<string | undefined> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter(match);
  } catch {
    return undefined;
  }
  let best: { path: string; mtime: number } | undefined;
  for (const name of names) {
    try {
      const st = await stat(join(dir, name));
      if (st.isFile() && (!best || st.mtimeMs > best.mtime))
        best = { path: join(dir, name), mtime: st.mtimeMs };
    } catch {
      // gone meanwhile
    }
  }
  return best?.path;
}

async function firstLine(path: string): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8');
    const nl = text.indexOf('\n');
    return nl < 0 ? text : text.slice(0, nl);
  } finally {
    await fh.close();
  }
}

/** Claude folders to look in, most specific first. */
function claudeDirs(s: SessionRecord, home: string, env: LocatorOptions['env']): string[] {
  const dirs: string[] = [];
  if (s.provider === 'mock' && env?.GC_MOCK_LOG_DIR) dirs.push(env.GC_MOCK_LOG_DIR);
  const config = env?.CLAUDE_CONFIG_DIR || join(home, '.claude');
  dirs.push(join(config, 'projects', claudeSlug(s.workDir)));
  if (s.provider === 'mock') dirs.push(join(home, '.claude', 'projects', claudeSlug(s.workDir)));
  return [...new Set(dirs)];
}

/** Finds the log of session `s`; undefined when there is none (yet), or when guessing would be ambiguous. */
export async function locateLog(
  s: SessionRecord,
  opts: LocatorOptions = {},
): Promise<LogLocation | undefined> {
  const home = opts.home ?? homedir();
  const family = familyOf(s.provider);
  const shared = (opts.openSessions ?? []).some(
    (o) => o.id !== s.id && o.workDir === s.workDir && familyOf(o.provider) === family,
  );
  if (family === 'claude') {
    const key = s.meta[K.sessionKey];
    const dirs = claudeDirs(s, home, opts.env);
    if (key)
      for (const dir of dirs) {
        const path = join(dir, `${key}.jsonl`);
        if (await isFile(path)) return { path, family };
      }
    if (key || shared) return undefined;
    for (const dir of dirs) {
      const path = await newest(dir, (n) => n.endsWith('.jsonl'));
      if (path) return { path, family };
    }
    return undefined;
  }
  if (shared) return undefined;
  if (family === 'gemini') {
    const hash = createHash('sha256').update(s.workDir).digest('hex');
    const path = await newest(join(home, '.gemini', 'tmp', hash, 'chats'), (n) =>
      /^session-.*\.json$/.test(n),
    );
    return path ? { path, family } : undefined;
  }
  return locateCodex(join(home, '.codex', 'sessions'), s.workDir);
}

/** The newest rollout of `workDir`, searching the 30 newest day folders. */
async function locateCodex(root: string, workDir: string): Promise<LogLocation | undefined> {
  const sortedDirs = async (dir: string): Promise<string[]> => {
    try {
      return (await readdir(dir)).filter((n) => /^\d+$/.test(n)).sort((a, b) => Number(b) - Number(a));
    } catch {
      return [];
    }
  };
  let days = 0;
  for (const y of await sortedDirs(root))
    for (const m of await sortedDirs(join(root, y)))
      for (const d of await sortedDirs(join(root, y, m))) {
        if (++days > 30) return undefined;
        const dir = join(root, y, m, d);
        let names: string[] = [];
        try {
          names = (await readdir(dir)).filter((n) => /^rollout-.*\.jsonl$/.test(n));
        } catch {
          continue;
        }
        const dated = await Promise.all(
          names.map(async (n) => ({ path: join(dir, n), mtime: (await stat(join(dir, n))).mtimeMs })),
        );
        dated.sort((a, b) => b.mtime - a.mtime);
        for (const { path } of dated)
          if (codexCwd(await firstLine(path)) === workDir) return { path, family: 'codex' };
      }
  return undefined;
}
