import { existsSync } from 'node:fs';
import type { Test } from 'tap';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`); never a downloaded browser. `GC_CHROMIUM` overrides. */
export const CHROMIUM = process.env.GC_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Launches headless Debian chromium for `t` (closed on teardown). Without it: a failure under CI (it must
 * be installed there, by .ci/run), else the whole file is skipped with the reason.
 */
export async function launchChromium(t: Test): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM)) {
    if (process.env.CI) t.fail(`${CHROMIUM} is missing; CI must install Debian's chromium (.ci/run)`);
    else t.plan(0, `${CHROMIUM} is missing: install Debian's chromium to run the browser tests`);
    return undefined;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  t.teardown(() => browser.close());
  return browser;
}

/** A page whose script errors fail `t`. */
export async function newPage(t: Test, browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (err) => t.fail(`page error: ${err.message}`));
  return page;
}
