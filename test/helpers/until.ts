/** Polls `check` every `everyMs` until it gives a value; throws naming `what` after `ms`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  ms: number,
  everyMs: number,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
