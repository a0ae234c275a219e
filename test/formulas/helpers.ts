import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Test } from 'tap';
import { BEAD_SERVICE, startBeadService, type BeadService } from '../../actors/beads/index.ts';
import { FormulaLibrary } from '../../actors/formulas/formulaLibrary.ts';
import { FormulaService } from '../../actors/formulas/formulaService.ts';
import { FORMULA_SERVICE } from '../../actors/formulas/startFormulaService.ts';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import type { Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import type { App } from '../../http/app.ts';
import type { AppDeps } from '../../http/deps.ts';
import { memoryApp } from '../helpers/app.ts';

let cities = 0;

/** A running city with a bead store and the formulas service on a file journal, served by an app. */
export interface FormulaHarness {
  name: string;
  dir: string;
  app: App;
  deps: AppDeps;
  journal: Journal;
  /** The city's one log runtime, shared by its services. */
  log: LogRuntime;
  beads: BeadService;
  formulas: FormulaService;
  base: string;
  /** Writes `formulas/<file>` in the city. */
  formula(file: string, text: string): Promise<void>;
  events(): Promise<JournalEvent[]>;
  /** Stops the store, reopens the log on a new backend and starts everything again (a restart). */
  restart(): Promise<void>;
  /** Extra services to attach (orders). */
  attach(extra?: Record<string, unknown>): void;
}

export async function formulaHarness(t: Test): Promise<FormulaHarness> {
  const name = `fcity${++cities}-${randomBytes(3).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'gc-formulas-'));
  await mkdir(join(dir, 'formulas'), { recursive: true });
  const location = { name, file: join(dir, '.gc', 'events.jsonl') };
  const { app, deps } = await memoryApp();
  let backend = new FileJournalBackend();
  let extras: Record<string, unknown> = {};
  const open = async () => {
    const journal = await backend.open(location);
    const log = new LogRuntime(journal, 0);
    const beads = await startBeadService({ name, path: dir, journal, log });
    return {
      journal,
      log,
      beads,
      formulas: new FormulaService(name, FormulaLibrary.forCity(dir), beads.service),
    };
  };
  const first = await open();
  const h: FormulaHarness = {
    name,
    dir,
    app,
    deps,
    ...first,
    base: `/v0/city/${name}`,
    formula: (file, text) => writeFile(join(dir, 'formulas', file), text),
    events: () => h.journal.list({ afterSeq: 0, limit: 1_000_000 }),
    restart: async () => {
      await h.beads.stop();
      await h.log.close();
      await backend.close();
      backend = new FileJournalBackend();
      Object.assign(h, await open());
      h.attach(extras);
    },
    attach: (extra = extras) => {
      extras = extra;
      deps.cities.set({
        name,
        path: dir,
        journal: h.journal,
        running: true,
        services: { [BEAD_SERVICE]: h.beads.service, [FORMULA_SERVICE]: h.formulas, ...extras },
      });
    },
  };
  h.attach();
  t.teardown(async () => {
    await app.close();
    await h.beads.stop();
    await h.log.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  });
  return h;
}

/** A JSON request to the harness's city; mutations get X-GC-Request. */
export function call(h: FormulaHarness, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: unknown) {
  return h.app.inject({
    method,
    url: `${h.base}${path}`,
    headers: method === 'GET' ? {} : { 'x-gc-request': '1' },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

/** The status and parsed JSON body of {@link call}'s answer. */
export async function callJson(
  h: FormulaHarness,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  payload?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
): Promise<{ status: number; body: any }> {
  const res = await call(h, method, path, payload);
  return { status: res.statusCode, body: res.json() };
}

/** Writes `rel` (relative to the city's directory) with `text`, making its folders. */
export async function put(h: FormulaHarness, rel: string, text: string): Promise<void> {
  await mkdir(dirname(join(h.dir, rel)), { recursive: true });
  await writeFile(join(h.dir, rel), text);
}

/** A three-step review formula: read → (lint, test) → report, with a required `target` variable. */
export const REVIEW = `formula = "mol-review"
description = "Review {{target}}"
version = 2

[vars]
target = { description = "PR", required = true }
mode = "quick"

[[steps]]
id = "read"
title = "Read {{target}}"
tags = ["review"]

[[steps]]
id = "lint"
title = "Lint ({{mode}})"
needs = ["read"]

[[steps]]
id = "test"
title = "Test"
needs = ["read"]
condition = "{{mode}} == full"

[[steps]]
id = "report"
title = "Report on {{target}}"
needs = ["lint", "test"]
`;

/** Which orders fired: the subjects of the log's `order.fired` events, sorted. */
export async function firedOrders(h: FormulaHarness): Promise<string[]> {
  return (await h.events())
    .filter((e) => e.type === 'order.fired')
    .map((e) => e.subject!)
    .sort();
}

/** A `/orders/check` answer's checks by scoped name: whether each is due, and why. */
export function checksByName(body: {
  checks: { scoped_name: unknown; due?: unknown; reason?: unknown }[];
}): Record<string, [boolean, string]> {
  return Object.fromEntries(
    body.checks.map((c): [string, [boolean, string]] => [
      String(c.scoped_name),
      [c.due === true, String(c.reason)],
    ]),
  );
}
