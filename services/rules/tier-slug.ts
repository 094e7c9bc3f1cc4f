/**
 * A tier's slug as the @fuul/sdk's CurrentTier names it, from the tier's name (a tier is an audience
 * segment with a rank and has no slug of its own): lower case, every run of characters other than
 * a-z and 0-9 one `-`, none at either end. "Gold Tier" is gold-tier; "Überfan #1" is berfan-1.
 */
export function tierSlug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
