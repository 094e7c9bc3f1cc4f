/** Where each screenshot docs/web.md shows comes from: `screenshots/<flow>-<name>.png` is capture `<name>` of the browser test flow `<flow>`. */
export interface ScreenshotSource {
  /** The file under docs/screenshots/. */
  target: string;
  flow: string;
  name: string;
}

/**
 * The screenshots a page links, each split into its flow and capture name: the longest prefix that is a flow the tests
 * captured (`hasFlow`) is the flow (`admin-webhooks-06-x` is flow admin-webhooks, not admin), the rest the name.
 */
export function screenshotSources(markdown: string, hasFlow: (flow: string) => boolean): ScreenshotSource[] {
  const targets = [...new Set([...markdown.matchAll(/\]\(screenshots\/([^)\s]+\.png)\)/g)].map((match) => match[1]!))];
  return targets.map((target) => {
    const stem = target.replace(/\.png$/, '');
    const dashes = [...stem.matchAll(/-/g)].map((match) => match.index);
    for (const at of dashes.reverse()) {
      const flow = stem.slice(0, at);
      if (hasFlow(flow)) return { target, flow, name: stem.slice(at + 1) };
    }
    return { target, flow: stem.slice(0, dashes[0] ?? stem.length), name: stem.slice((dashes[0] ?? stem.length) + 1) };
  });
}
