import { tabTitle } from '../ui/tab-title';

/** The admin app's name, last in every tab's title. */
export const ADMIN_APP_NAME = 'Referral admin';

/** Each section's screens by their path under it ("" its first screen; ":" one record), first match wins. */
const SCREENS: Record<string, ReadonlyArray<[pattern: RegExp, title: string]>> = {
  home: [[/^$/, 'Home']],
  audiences: [
    [/^$/, 'Audiences'],
    [/^new$/, 'New audience'],
    [/^[^/]+$/, 'Audience'],
  ],
  affiliates: [
    [/^$/, 'Affiliates'],
    [/^[^/]+\/[^/]+$/, 'Affiliate'],
  ],
  applications: [[/^$/, 'Applications']],
  masters: [
    [/^$/, 'Master affiliates'],
    [/^[^/]+$/, 'Master affiliate'],
  ],
  program: [[/^$/, 'Program']],
  tax: [
    [/^$/, 'Tax forms'],
    [/^records\/[^/]+\/[^/]+$/, 'Tax record'],
    [/^settings$/, 'Tax settings'],
    [/^audit-log$/, 'Tax audit log'],
  ],
  payouts: [
    [/^(currencies)?$/, 'Currencies'],
    [/^terms$/, 'Payout terms'],
    [/^terms\/new$/, 'New payout terms'],
    [/^terms\/edit\/[^/]+$/, 'Edit payout terms'],
    [/^conversions$/, 'Conversions'],
    [/^leaderboard$/, 'Leaderboard'],
    [/^reconciliation$/, 'Reconciliation'],
  ],
  review: [
    [/^(queue)?$/, 'Review queue'],
    [/^settings$/, 'Review settings'],
  ],
  webhooks: [
    [/^$/, 'Webhooks'],
    [/^new$/, 'New webhook endpoint'],
    [/^[^/]+$/, 'Webhook'],
  ],
  'api-keys': [[/^$/, 'API keys']],
};

/** What a screen of the admin app is called, from its path under /admin ("payouts/terms/new" -> "New payout terms"). */
export function screenTitle(path: string): string {
  const [section = '', ...rest] = path.replace(/^\/+|\/+$/g, '').split('/');
  const under = rest.join('/');
  return SCREENS[section]?.find(([pattern]) => pattern.test(under))?.[1] ?? 'Page not found';
}

/** A tab's title: the screen, the project (its name once known), the app: "Payout terms · Acme · Referral admin". */
export function documentTitle(screen: string, projectName: string | undefined): string {
  return tabTitle(screen, projectName, ADMIN_APP_NAME);
}
