/** A browser tab's title, most specific first: "Claims · Acme · Affiliate portal" (parts left empty are left out). */
export function tabTitle(screen: string, owner: string | undefined, app: string): string {
  return [screen, owner, app].filter(Boolean).join(' · ');
}
