/**
 * Shared by the agency service (which keeps and checks a project's link settings) and the gateway
 * (which gives the affiliate portal each code's link): the rule of an affiliate's referral link.
 *
 * A project has a program URL (its site, where a referred person lands) and a link template, in
 * which `{code}` stands for the affiliate's code and `{program_url}` for the program URL. The
 * default template, `{program_url}?af={code}`, is the program URL with the `af` parameter the
 * tracking reads (as the @fuul/sdk's generateTrackingLink writes it). A link needs every part its
 * template names: without a program URL, a template that uses it gives no link yet.
 */
import type { FieldViolation } from './errors';

export const DEFAULT_LINK_TEMPLATE = '{program_url}?af={code}';

export const REFERRAL_LINK_LIMITS = {
  /** Characters of a program URL or a link template. */
  maxLength: 2048,
} as const;

const PLACEHOLDERS = ['{program_url}', '{code}'] as const;
/** What a template is checked with: a program URL and a code of the allowed forms. */
const SAMPLE_PROGRAM_URL = 'https://example.com';
const SAMPLE_CODE = 'CODE_1';

export interface LinkSettings {
  programUrl: string | null;
  /** Null: the default template. */
  linkTemplate: string | null;
}

/** An absolute http(s) URL with a host, and nothing that makes no sense in a link. */
function isWebUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The program URL's problems (field `program_url`): an absolute http or https URL without
 * credentials, a query or a fragment (the link template adds its own query), at most 2,048 characters.
 */
export function programUrlViolations(value: string): FieldViolation[] {
  const problem = (reason: string): FieldViolation[] => [{ field: 'program_url', reason }];
  if (value.length === 0) return problem('must not be empty (send null to clear it)');
  if (value.length > REFERRAL_LINK_LIMITS.maxLength) return problem(`must be at most ${REFERRAL_LINK_LIMITS.maxLength} characters`);
  if (!isWebUrl(value)) return problem('must be an absolute http or https URL, e.g. https://example.com');
  const url = new URL(value);
  if (url.username !== '' || url.password !== '') return problem('must not hold a user name or password');
  if (value.includes('?') || value.includes('#')) return problem('must have no query or fragment: put query parameters in the link template');
  if (value.includes('{') || value.includes('}')) return problem('must not hold { or }');
  return [];
}

/**
 * The link template's problems (field `link_template`): it holds `{code}`, names no other
 * placeholder than `{code}` and `{program_url}` (which, if used, starts it), and with them filled
 * in is an absolute http or https URL; at most 2,048 characters.
 */
export function linkTemplateViolations(template: string): FieldViolation[] {
  const problem = (reason: string): FieldViolation[] => [{ field: 'link_template', reason }];
  if (template.length > REFERRAL_LINK_LIMITS.maxLength) return problem(`must be at most ${REFERRAL_LINK_LIMITS.maxLength} characters`);
  if (!template.includes('{code}')) return problem('must contain {code}, where the affiliate’s code goes');
  const unknown = [...template.matchAll(/\{[^{}]*\}/g)]
    .map((match) => match[0])
    .filter((name) => !(PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown.length > 0) return problem(`names an unknown placeholder ${unknown[0]}: only {code} and {program_url}`);
  const rest = template.replaceAll('{program_url}', '').replaceAll('{code}', '');
  if (rest.includes('{') || rest.includes('}')) return problem('has an unmatched { or }');
  if (template.includes('{program_url}') && !template.startsWith('{program_url}')) return problem('may use {program_url} only at its start');
  if (!isWebUrl(fill(template, SAMPLE_PROGRAM_URL, SAMPLE_CODE))) {
    return problem('must give an absolute http or https URL, e.g. {program_url}?af={code} or https://example.com/?af={code}');
  }
  return [];
}

function fill(template: string, programUrl: string, code: string): string {
  return template.replaceAll('{program_url}', programUrl).replaceAll('{code}', encodeURIComponent(code));
}

/** The template in force: the project's, or the default. */
export function effectiveLinkTemplate(settings: LinkSettings): string {
  return settings.linkTemplate ?? DEFAULT_LINK_TEMPLATE;
}

/**
 * The link of one code, or null while the project has no link: its template uses the program URL
 * and there is none (or, defensively, what it gives is no web URL).
 */
export function referralLink(settings: LinkSettings, code: string): string | null {
  const template = effectiveLinkTemplate(settings);
  if (template.includes('{program_url}') && settings.programUrl === null) return null;
  const link = fill(template, settings.programUrl ?? '', code);
  return isWebUrl(link) ? link : null;
}
