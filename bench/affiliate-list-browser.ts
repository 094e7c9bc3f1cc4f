/**
 * Issue 26, section 4: the time from navigation to the first rows of the admin dashboard's affiliate
 * list over 100,000 affiliates (the affiliate-list phase's seed), measured in Chromium: on a first
 * visit (empty cache: the bundle downloaded too), on a reload (the bundle from the cache) and on a
 * filtered, sorted view. Printed per view: the median and the slowest of the runs, with when the API's
 * page arrived and how many bytes crossed the network.
 */
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { chromiumPath } from '../scripts/check-chromium';
import type { AffiliateListData } from './affiliate-list';
import { percentile } from './data';
import { fmt, table } from './report';

/** One navigation, as the browser timed it (ms since the navigation started: performance.now()). */
interface FirstRows {
  firstRowMs: number;
  /** When the list's first page had arrived (the API's answer, its resource timing). */
  apiAnsweredMs: number;
  /** Bytes over the network (encoded: what compression saved is not in it), 0 for what came from the cache. */
  transferredBytes: number;
}

export interface FirstRowsView {
  label: string;
  path: string;
  runs: FirstRows[];
}

/**
 * Installed before any page script (an init script, which the pages' Content-Security-Policy does not
 * govern, where an evaluated string would be refused): on each frame until the first row is laid out,
 * then it keeps what the page saw in window.__firstRows. Run in the page, so its types are the DOM's.
 */
const FIRST_ROW_WATCH = `(() => {
  const check = () => {
    const row = document.querySelector('.grid-body [role="row"]');
    if (!row || row.getBoundingClientRect().height === 0) return requestAnimationFrame(check);
    const resources = performance.getEntriesByType('resource');
    const page = resources.find((entry) => /\\/api\\/v1\\/projects\\/[^/]+\\/affiliates\\?/.test(entry.name));
    const navigation = performance.getEntriesByType('navigation')[0];
    window.__firstRows = {
      firstRowMs: performance.now(),
      apiAnsweredMs: page ? page.responseEnd : NaN,
      transferredBytes: [navigation, ...resources].reduce((sum, entry) => sum + (entry ? entry.transferSize : 0), 0),
    };
  };
  requestAnimationFrame(check);
})();`;

/** What the watch kept, once it has (polled from here: the time was taken in the page, so the polling adds nothing to it). */
async function firstRowsOf(page: Page): Promise<FirstRows> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const seen = await page.evaluate<FirstRows | null>('window.__firstRows ?? null');
    if (seen) return seen;
    if (Date.now() > deadline) throw new Error(`no affiliate row on ${page.url()} after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Signs the context in as the dashboard does (the admin key in the tab's session storage), before any page script runs. */
async function signedIn(context: BrowserContext, data: AffiliateListData): Promise<void> {
  const credentials = JSON.stringify({ projectId: data.project.id, apiKey: data.project.keys.admin });
  await context.addInitScript(`sessionStorage.setItem('referral.admin', ${JSON.stringify(credentials)});`);
  await context.addInitScript(FIRST_ROW_WATCH);
}

export async function measureFirstRows(baseUrl: string, data: AffiliateListData, runs: number): Promise<FirstRowsView[]> {
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const list = `${baseUrl}/app/admin/affiliates`;
  const views: FirstRowsView[] = [
    { label: 'first visit (empty cache), newest first', path: list, runs: [] },
    { label: 'reload (bundle cached), newest first', path: list, runs: [] },
    { label: 'reload, region DE by volume', path: `${list}?region=DE&sort_by=volume_usd&order=desc`, runs: [] },
  ];
  try {
    for (let run = 0; run < runs; run += 1) {
      // A fresh context per run: an empty HTTP cache for the first visit, then its reloads.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await signedIn(context, data);
      const page = await context.newPage();
      for (const view of views) {
        await page.goto(view.path, { waitUntil: 'commit' });
        view.runs.push(await firstRowsOf(page));
      }
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return views;
}

export function firstRowsTable(views: FirstRowsView[]): string {
  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  const slowest = (values: number[]) => Math.max(...values);
  return table(
    ['view', 'runs', 'first rows, median', 'first rows, slowest', 'API page answered, median', 'transferred, median'],
    views.map(({ label, runs }) => {
      const firstRows = runs.map((run) => run.firstRowMs);
      return [
        label,
        runs.length,
        fmt.ms(median(firstRows)),
        fmt.ms(slowest(firstRows)),
        fmt.ms(median(runs.map((run) => run.apiAnsweredMs))),
        `${fmt.int(Math.round(median(runs.map((run) => run.transferredBytes)) / 1024))} KiB`,
      ];
    }),
  );
}
