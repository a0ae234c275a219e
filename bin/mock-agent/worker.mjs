// The mock agent's scripted worker mode: deterministic, no LLM. Each round it asks for work the way a
// Claude session of gc does (its Stop hook, `gc hook --inject`; without hooks, `gc hook`), then claims the
// bead (`bd update <id> --claim`), does a step (writes mock-work/<id>.txt, commits it when the working
// directory is a git repository), mails a report (`gc mail send`), closes it (`bd close <id>`), and goes on;
// with no work it idles and asks again after a while.
//
// A claim lost to another worker (the pool's hook shows every idle member the same first bead, and identical
// scripted steps keep the members in step) is followed, as an agent told "if the claim fails, take another"
// does, by a look at all the ready work routed to its template (`bd ready --metadata-field
// gc.routed_to=<template> --unassigned --json`) and a claim of the one at its own place in that list (a slot
// fixed by the session's name), so that members who lost together try different beads, not the same next one.
//
// Knobs (environment): GC_MOCK_REPORT_TO (default mayor), GC_MOCK_WORK_MS (time a step takes, default 0),
// GC_MOCK_POLL_MS (idle re-check, default 1000), GC_MOCK_MAX_BEADS (stop asking after n beads).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runHooks, sh, workItems } from './hooks.mjs';

const q = (s) => `'${String(s).replaceAll("'", `'\\''`)}'`;

/**
 * The session's place in its pool, the same every time: a pool instance's number (`polecat-3` → 2), else a
 * string hash of its name. Members of one pool then have different places.
 */
const slotOf = (name) => {
  const numbered = /-(\d+)$/.exec(String(name));
  if (numbered) return Number(numbered[1]) - 1;
  let h = 0;
  for (const c of String(name)) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h;
};

/** The most claims a round tries after a lost one before asking the hook again. */
const RETRIES = 3;

export function startWorker({ cwd, env, hooks, say, log, onIdle }) {
  const reportTo = env.GC_MOCK_REPORT_TO || 'mayor';
  const workMs = Number(env.GC_MOCK_WORK_MS || 0);
  const pollMs = Number(env.GC_MOCK_POLL_MS || 1000);
  const max = Number(env.GC_MOCK_MAX_BEADS || Infinity);
  const slot = slotOf(env.GC_ALIAS || env.GC_SESSION_NAME || env.GC_SESSION_ID || cwd);
  let done = 0;
  let stopped = false;

  async function nextItem() {
    if ((hooks.events.Stop ?? []).length > 0) return workItems(await runHooks(hooks, 'Stop', cwd, env))?.[0];
    const r = await sh('gc hook', cwd, env);
    if (r.code !== 0) return undefined;
    try {
      return JSON.parse(r.stdout)[0];
    } catch {
      return undefined;
    }
  }

  /** Another ready bead routed to this session's template: the one at its slot in the list. */
  async function another() {
    const template = env.GC_TEMPLATE;
    if (!template) return undefined;
    const r = await sh(
      `bd ready --metadata-field ${q(`gc.routed_to=${template}`)} --unassigned --json`,
      cwd,
      env,
    );
    if (r.code !== 0) return undefined;
    try {
      const items = JSON.parse(r.stdout);
      return Array.isArray(items) && items.length > 0 ? items[slot % items.length] : undefined;
    } catch {
      return undefined;
    }
  }

  async function work(item) {
    const id = item.id;
    const claim = await sh(`bd update ${q(id)} --claim`, cwd, env);
    if (claim.code !== 0) return 'lost';
    log(`[work] claimed ${id}`);
    mkdirSync(join(cwd, 'mock-work'), { recursive: true });
    writeFileSync(join(cwd, 'mock-work', `${id}.txt`), `${item.title}\n`);
    if ((await sh('git rev-parse --is-inside-work-tree', cwd, env)).code === 0) {
      await sh(`git add mock-work/${q(`${id}.txt`)} && git commit -q -m ${q(`Work on ${id}`)}`, cwd, env);
    }
    if (workMs > 0) await new Promise((r) => setTimeout(r, workMs));
    // The report goes out before the close: once the bead is closed the session holds nothing, and a
    // shrinking pool may close it (ending this process) before a report sent after the close is out.
    await sh(
      `gc mail send ${q(reportTo)} -s ${q(`Done: ${id}`)} -m ${q(`Finished ${id}: ${item.title}`)}`,
      cwd,
      env,
    );
    const close = await sh(`bd close ${q(id)}`, cwd, env);
    if (close.code !== 0) return false;
    log(`[work] closed ${id}`);
    say(`worked ${id}`);
    return true;
  }

  async function round() {
    while (!stopped && done < max) {
      const item = await nextItem();
      if (!item) break;
      let outcome = await work(item);
      for (let i = 0; outcome === 'lost' && i < RETRIES; i++) {
        const next = await another();
        if (!next) break;
        outcome = await work(next);
      }
      if (outcome === true) done++;
      // Lost every claim tried: the work it was shown is someone else's; ask again after the idle pause
      // rather than at once (a custom work query may keep showing a taken bead).
      else if (outcome === 'lost') break;
    }
    if (stopped || done >= max) return onIdle();
    onIdle();
    setTimeout(round, pollMs);
  }

  round();
  return { stop: () => (stopped = true) };
}
