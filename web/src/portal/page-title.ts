import { tabTitle } from '../ui/tab-title';

/** The portal's name, last in every tab's title. */
export const PORTAL_APP_NAME = 'Affiliate portal';

/** The portal's screens, by the path under /portal/<projectId>, as its navigation names them. */
export const PORTAL_SECTIONS = [
  { to: 'apply', label: 'Membership' },
  { to: 'codes', label: 'Referral codes' },
  { to: 'stats', label: 'Stats' },
  { to: 'tax', label: 'Tax' },
  { to: 'claims', label: 'Claims' },
] as const;

/** What a portal screen is called, from its path under /portal/<projectId> ("claims" -> "Claims"). */
export function portalScreenTitle(path: string): string {
  const section = path.replace(/^\/+|\/+$/g, '').split('/')[0] ?? '';
  return PORTAL_SECTIONS.find((choice) => choice.to === section)?.label ?? 'Page not found';
}

/**
 * A portal tab's title: "Claims · Affiliate portal". No endpoint the portal may read names the
 * program yet; once one does, its name goes in the middle ("Claims · Acme · Affiliate portal").
 */
export function portalDocumentTitle(screen: string, programName?: string): string {
  return tabTitle(screen, programName, PORTAL_APP_NAME);
}
