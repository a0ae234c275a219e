// The mock agent's scripted worker mode: deterministic, no LLM. Each round it asks for work the way a
// Claude session of gc does (its Stop hook, `gc hook --inject`; without hooks, `gc hook`), then claims the
// bead (`bd update <id> --claim`), does a step (writes mock-work/<id>.txt, commits it when the working
// directory is a git repository), mails a report (`gc mail send`), closes it (`bd close <id>`), and goes on;
// with no work it idles and asks again after a while.
//
// Knobs (environment): GC_MOCK_REPORT_TO (default mayor), GC_MOCK_WORK_MS (time a step takes, default 0),
// GC_MOCK_POLL_MS (idle re-check, default 1000), GC_MOCK_MAX_BEADS (stop asking after n beads).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runHooks, sh, workItems } from './hooks.mjs';

const q = (s) => `'${String(s).replaceAll("'", `'\\''`)}'`;

export function startWorker({ cwd, env, hooks, say, log, onIdle }) {
  const reportTo = env.GC_MOCK_REPORT_TO || 'mayor';
  const workMs = Number(env.GC_MOCK_WORK_MS || 0);
  const pollMs = Number(env.GC_MOCK_POLL_MS || 1000);
  const max = Number(env.GC_MOCK_MAX_BEADS || Infinity);
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

  async function work(item) {
    const id = item.id;
    const claim = await sh(`bd update ${q(id)} --claim`, cwd, env);
    if (claim.code !== 0) return false;
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
      if (await work(item)) done++;
    }
    if (stopped || done >= max) return onIdle();
    onIdle();
    setTimeout(round, pollMs);
  }

  round();
  return { stop: () => (stopped = true) };
}
