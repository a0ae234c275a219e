import { UnavailableError } from '../runtime/errors.ts';

/**
 * The file system steps of `POST /v0/city`, in order. Each runs under one deadline, because a file system
 * can stop answering (a hung network mount, a wedged disk) and a create must never wait on it forever
 * while it holds its claim on the directory.
 */
export const SCAFFOLD_STEPS = [
  'resolve dir',
  'check dir',
  'check city.toml',
  'create dir',
  'write city.toml',
  'create .gc',
  'write registry',
  'create log',
  'undo',
] as const;

export type ScaffoldStep = (typeof SCAFFOLD_STEPS)[number];

/** How scaffold steps are bounded (`SupervisorOptions.scaffoldStepTimeoutMs`, `beforeScaffoldStep`). */
export interface ScaffoldDeadline {
  /** How long one step may take (ms). */
  stepTimeoutMs: number;
  /** Awaited inside the step's deadline before its work: the seam through which tests hang a step. */
  beforeStep?: (step: ScaffoldStep) => Promise<void> | undefined;
}

export const DEFAULT_SCAFFOLD_STEP_TIMEOUT_MS = 10_000;

/** Runs one step of the create at `path` under the deadline. */
export type StepRunner = <T>(step: ScaffoldStep, work: () => Promise<T>) => Promise<T>;

/** 503 `scaffold_timeout`: a step overran; the create fails (and undoes its work) instead of waiting on. */
export const scaffoldTimeout = (path: string, step: ScaffoldStep, ms: number): UnavailableError =>
  new UnavailableError(
    `creating city at ${path}: step "${step}" did not finish within ${ms} ms`,
    'scaffold_timeout',
  );

/**
 * The step runner of one create at `path`. A step that overruns rejects with `scaffoldTimeout`; its work
 * is not cancelled (Node cannot cancel a file system call), so what it does after the deadline is not undone.
 */
export function stepRunner(path: string, deadline: ScaffoldDeadline): StepRunner {
  return async (step, work) => {
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(scaffoldTimeout(path, step, deadline.stepTimeoutMs)),
        deadline.stepTimeoutMs,
      );
    });
    try {
      return await Promise.race([
        (async () => {
          await deadline.beforeStep?.(step);
          return work();
        })(),
        overrun,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
}
