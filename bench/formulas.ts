/**
 * `node dist/bench/formulas.js`: the formulas and orders figures, printed as ONE JSON line on stdout
 * (progress on stderr). One city on the file journal, its bead store and services in process:
 *
 * 1. cook: `FormulaService.cook` of a formula of 999 chained steps (a molecule of 1,000 beads, read and
 *    compiled from its file each time); the floor is the same 1,000 beads (titles, metadata, parents and
 *    edges) created by one decision through the same log runtime, in the same run (target ≤ 2 × floor).
 *    Rounds alternate; medians.
 * 2. scheduler: 10,000 cron orders (about 7 due each minute of the day), one `tick()` per simulated
 *    minute: p99 of a tick that fires the minute's orders (each a cooked wisp and its tracking bead, one
 *    batch per firing, the orders side by side), floor the same firings written by `fire()` side by side
 *    without evaluating the other orders;
 *    and p99 of a tick within a minute where nothing is due, floor a bare pass over the 10,000 orders'
 *    state (target ≤ 20 ms).
 *
 * Sizes: BENCH_QUICK=1 (fewer rounds and ticks) or BENCH_COOK_ROUNDS, BENCH_ORDER_TICKS.
 * Effects: a temp dir (removed at the end).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startBeadService } from '../actors/beads/index.ts';
import { FormulaLibrary } from '../actors/formulas/formulaLibrary.ts';
import { FormulaService } from '../actors/formulas/formulaService.ts';
import { FileJournalBackend } from '../actors/runtime/journal/fileJournal.ts';
import { LogRuntime } from '../actors/runtime/logRuntime/logRuntime.ts';
import { OrderService } from '../actors/orders/orderService.ts';
import { compactBead } from '../machines/beads/beadShape.ts';
import { acceptAll } from '../machines/beads/decision.ts';
import { beadEvent, BeadEventType } from '../machines/beads/events.ts';
import { formatId } from '../machines/beads/ids.ts';
import type { StoredBead } from '../machines/beads/model.ts';
import { parseOrder, type Order } from '../machines/orders/order.ts';
import { quantile } from './journalKit.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const size = (name: string, full: number, small: number): number =>
  Number(process.env[name] ?? (quick ? small : full));
const sizes = {
  steps: 999,
  cook_rounds: size('BENCH_COOK_ROUNDS', 21, 7),
  orders: 10_000,
  ticks: size('BENCH_ORDER_TICKS', 300, 100),
};
const log = (message: string): void => void process.stderr.write(`bench formulas: ${message}\n`);
const round = (v: number, digits = 3): number => Math.round(v * 10 ** digits) / 10 ** digits;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const q = (xs: number[], p: number) => round(quantile(sorted(xs), p));

function fig(name: string, value: number, unit: string, floor?: [number, string], target?: string): object {
  return {
    name,
    value,
    unit,
    ...(floor ? { floor: floor[0], floor_name: floor[1] } : {}),
    ...(target ? { target } : {}),
  };
}

/** A formula of `n` steps, each needing the one before. */
function chainFormula(n: number): string {
  const steps = Array.from({ length: n }, (_, i) =>
    [
      `[[steps]]`,
      `id = "s${i}"`,
      `title = "Step ${i} of {{target}}"`,
      ...(i ? [`needs = ["s${i - 1}"]`] : []),
    ].join('\n'),
  );
  return `description = "bench"\nversion = 2\n[vars]\ntarget = "x"\n\n${steps.join('\n\n')}\n`;
}

/** The beads of a molecule with fresh ids from `next` on (parents, roots and edges remapped). */
function renumbered(beads: readonly StoredBead[], prefix: string, next: number, now: string): StoredBead[] {
  const ids = new Map(beads.map((b, i) => [b.id, formatId(prefix, next + i)]));
  const map = (id: string) => ids.get(id) ?? id;
  return beads.map((b) =>
    compactBead({
      ...b,
      id: map(b.id),
      created_at: now,
      updated_at: now,
      parent: b.parent === undefined ? undefined : map(b.parent),
      metadata: b.metadata && {
        ...b.metadata,
        ...(b.metadata['gc.root_bead_id'] ? { 'gc.root_bead_id': map(b.metadata['gc.root_bead_id']) } : {}),
      },
      dependencies: b.dependencies?.map((d) => ({
        ...d,
        issue_id: map(d.issue_id),
        depends_on_id: map(d.depends_on_id),
      })),
    }),
  );
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-bench-formulas-'));
  await mkdir(join(dir, 'formulas'), { recursive: true });
  await writeFile(join(dir, 'formulas', 'chain.toml'), chainFormula(sizes.steps));
  await writeFile(join(dir, 'formulas', 'tiny.toml'), '[[steps]]\nid = "go"\n');
  const backend = new FileJournalBackend();
  const name = 'benchcity';
  const journal = await backend.open({ name, file: join(dir, '.gc', 'events.jsonl') });
  const runtime = new LogRuntime(journal, 0);
  const beads = await startBeadService({ name, path: dir, journal, log: runtime });
  const store = beads.service;
  const formulas = new FormulaService(name, FormulaLibrary.forCity(dir), store);
  const figures: object[] = [];
  try {
    // 1. Cook vs the same beads in one batch.
    const template = (await formulas.cook('chain', { target: 'worker' })).beads;
    if (template.length !== sizes.steps + 1) throw new Error(`cooked ${template.length} beads`);
    const cookMs: number[] = [];
    const floorMs: number[] = [];
    for (let r = 0; r < sizes.cook_rounds; r++) {
      let t0 = performance.now();
      await formulas.cook('chain', { target: 'worker', vars: { target: `r${r}` } });
      cookMs.push(performance.now() - t0);
      t0 = performance.now();
      await store.decide((model, ctx) => {
        const fresh = renumbered(template, model.prefix, model.nextNumber, ctx.now);
        return acceptAll(
          fresh.length,
          fresh.map((b) => beadEvent(BeadEventType.Created, b, ctx)),
        );
      });
      floorMs.push(performance.now() - t0);
    }
    const cook = q(cookMs, 0.5);
    const batch = q(floorMs, 0.5);
    log(`cook p50 ${cook} ms, batch p50 ${batch} ms`);
    figures.push(
      fig(
        'cook a 1,000-bead formula p50',
        cook,
        'ms',
        [batch, 'the same 1,000 beads in one batch'],
        '≤ 2 × floor',
      ),
    );

    // 2. The scheduler with 10,000 orders.
    const T0 = Date.parse('2030-01-01T00:00:00Z');
    const orders: Order[] = [];
    for (let i = 0; i < sizes.orders; i++) {
      const text = `[order]\nformula = "tiny"\ngate = "cron"\nschedule = "${i % 60} ${Math.floor(i / 60) % 24} * * *"\n`;
      const parsed = parseOrder(`o${i}`, `orders/o${i}.toml`, text);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
      orders.push(parsed.order);
    }
    const clock = { now: T0 + 5_000 };
    const svc = new OrderService(name, dir, store, formulas, runtime, { clock: () => clock.now, tickMs: 0 });
    await svc.start();
    svc.setOrders(orders);
    let t0 = performance.now();
    const firstFired = await svc.tick();
    const cold = round(performance.now() - t0);
    log(`first tick ${cold} ms (${firstFired} fired)`);
    const firing: number[] = [];
    const idle: number[] = [];
    let fired = 0;
    for (let k = 1; k <= sizes.ticks; k++) {
      clock.now = T0 + k * 60_000 + 5_000;
      t0 = performance.now();
      fired += await svc.tick();
      firing.push(performance.now() - t0);
      clock.now += 20_000;
      t0 = performance.now();
      const none = await svc.tick();
      idle.push(performance.now() - t0);
      if (none !== 0) throw new Error(`an idle tick fired ${none}`);
    }
    log(
      `${sizes.ticks} firing ticks (${fired} fired): p99 ${q(firing, 0.99)} ms; idle p99 ${q(idle, 0.99)} ms`,
    );

    // Floors: the same firings without the evaluation, a day later; a bare pass over the orders' state.
    const direct: number[] = [];
    for (let k = 1; k <= sizes.ticks; k++) {
      const slot = T0 + 24 * 60 * 60_000 + k * 60_000;
      t0 = performance.now();
      const writes: Promise<unknown>[] = [];
      for (let i = k % 1440; i < sizes.orders; i += 1440)
        writes.push(svc.fire({ order: orders[i]!, slot }, slot));
      await Promise.all(writes);
      direct.push(performance.now() - t0);
    }
    const bare: number[] = [];
    let seen = 0;
    for (let k = 0; k < sizes.ticks; k++) {
      t0 = performance.now();
      for (const o of orders) if (svc.state(o.scopedName).lastSlot !== undefined) seen++;
      bare.push(performance.now() - t0);
    }
    if (seen === 0) throw new Error('no order has state');
    await svc.stop();
    figures.push(
      fig(
        'scheduler tick, 10,000 orders, ~7 firing p99',
        q(firing, 0.99),
        'ms',
        [q(direct, 0.99), 'the same firings without evaluating, p99'],
        '≤ 20 ms',
      ),
      fig('scheduler tick, 10,000 orders, ~7 firing p50', q(firing, 0.5), 'ms', [
        q(direct, 0.5),
        'the same firings without evaluating, p50',
      ]),
      fig(
        'scheduler tick, 10,000 orders, none due p99',
        q(idle, 0.99),
        'ms',
        [q(bare, 0.99), 'a bare pass over the orders’ state, p99'],
        '≤ 20 ms',
      ),
      fig('scheduler first tick, 10,000 orders never run', cold, 'ms'),
    );
    process.stdout.write(
      `${JSON.stringify({
        scenario: 'formulas',
        mode: quick ? 'quick' : 'full',
        sizes,
        cook_ms: { p50: cook, p99: q(cookMs, 0.99) },
        batch_ms: { p50: batch, p99: q(floorMs, 0.99) },
        ticks: {
          fired,
          firing_p50_ms: q(firing, 0.5),
          firing_p99_ms: q(firing, 0.99),
          idle_p99_ms: q(idle, 0.99),
          direct_p99_ms: q(direct, 0.99),
          bare_pass_p99_ms: q(bare, 0.99),
          first_tick_ms: cold,
        },
        figures,
      })}\n`,
    );
  } finally {
    await beads.stop();
    await runtime.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
