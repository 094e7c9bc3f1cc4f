import { DEFAULT_LINK_TEMPLATE, linkTemplateViolations, programUrlViolations, referralLink } from '../../../services/rules/referral-link';

/** The rule of a referral link (services/rules/referral-link.ts), shared by the agency (checks) and the gateway (links). */
describe('referral links', () => {
  it('fills the default template with the program URL and the code in the af parameter', () => {
    expect(DEFAULT_LINK_TEMPLATE).toBe('{program_url}?af={code}');
    expect(referralLink({ programUrl: 'https://example.com', linkTemplate: null }, 'GRACE-2026')).toBe('https://example.com?af=GRACE-2026');
    expect(referralLink({ programUrl: 'https://example.com/join/', linkTemplate: null }, 'ada_1')).toBe('https://example.com/join/?af=ada_1');
  });

  it('fills a template of the project’s own, with or without the program URL', () => {
    expect(referralLink({ programUrl: 'https://shop.example', linkTemplate: '{program_url}/r/{code}?utm_source=affiliates' }, 'ADA')).toBe(
      'https://shop.example/r/ADA?utm_source=affiliates',
    );
    expect(referralLink({ programUrl: null, linkTemplate: 'https://example.com/?af={code}&lang=en' }, 'ADA')).toBe(
      'https://example.com/?af=ADA&lang=en',
    );
  });

  it('gives no link while the template needs a program URL the project has not set', () => {
    expect(referralLink({ programUrl: null, linkTemplate: null }, 'ADA')).toBeNull();
    expect(referralLink({ programUrl: null, linkTemplate: '{program_url}/r/{code}' }, 'ADA')).toBeNull();
  });

  it.each([
    ['https://example.com', []],
    ['http://localhost:8080/landing', []],
    ['', 'must not be empty'],
    ['example.com', 'absolute http or https URL'],
    ['ftp://example.com', 'absolute http or https URL'],
    ['javascript:alert(1)', 'absolute http or https URL'],
    ['https://exa mple.com', 'absolute http or https URL'],
    ['https://user:secret@example.com', 'user name or password'],
    ['https://example.com/?ref=1', 'no query or fragment'],
    ['https://example.com/#top', 'no query or fragment'],
    ['https://example.com/{code}', 'must not hold { or }'],
    [`https://example.com/${'a'.repeat(2048)}`, 'at most 2048'],
  ])('checks the program URL %p', (value, expected) => {
    const violations = programUrlViolations(value);
    if (Array.isArray(expected)) expect(violations).toEqual([]);
    else expect(violations).toEqual([{ field: 'program_url', reason: expect.stringContaining(expected) }]);
  });

  it.each([
    ['{program_url}?af={code}', []],
    ['{program_url}/r/{code}', []],
    ['https://example.com/?af={code}', []],
    ['https://example.com/?af=', 'must contain {code}'],
    ['{program_url}?af={code}&x={user}', 'unknown placeholder {user}'],
    ['{program_url}?af={code}}', 'unmatched'],
    ['https://example.com/?u={program_url}&af={code}', 'only at its start'],
    ['ftp://example.com/{code}', 'absolute http or https URL'],
    ['{code}', 'absolute http or https URL'],
    ['https://example.com/?af={code} x', 'absolute http or https URL'],
  ])('checks the link template %p', (template, expected) => {
    const violations = linkTemplateViolations(template);
    if (Array.isArray(expected)) expect(violations).toEqual([]);
    else expect(violations).toEqual([{ field: 'link_template', reason: expect.stringContaining(expected) }]);
  });
});
