/**
 * The referral link as the settings page previews it while the admin types: the template with
 * `{program_url}` and `{code}` filled in. The API makes the links the portal copies by the same rule
 * (services/rules/referral-link.ts, which also checks what is saved); this copy only previews.
 */
export function previewLink(programUrl: string, template: string, code: string): string | null {
  if (template.includes('{program_url}') && programUrl === '') return null;
  return template.replaceAll('{program_url}', programUrl).replaceAll('{code}', encodeURIComponent(code));
}
