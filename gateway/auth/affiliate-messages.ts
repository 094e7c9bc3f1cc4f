/**
 * The messages an affiliate's wallet signs for the @fuul/sdk's updates of its own codes, from the
 * configured templates (AFFILIATE_CODE_UPDATE_MESSAGE_TEMPLATE, AFFILIATE_REBATE_MESSAGE_TEMPLATE):
 * the placeholders are replaced by the values as the request sends them, so the wallet signed exactly
 * what is asked for. (The creation message is WalletSignatures.codeCreationMessage.)
 */
export class AffiliateMessages {
  constructor(private readonly templates: { codeUpdate: string; rebateRate: string }) {}

  /** What the affiliate signs to make `code` its new code. */
  codeUpdate(code: string): string {
    return fill(this.templates.codeUpdate, { code });
  }

  /** What the affiliate signs to set the rebate rate of `code` to `rate` (the number as sent: 0.05). */
  rebateRate(code: string, rate: number): string {
    return fill(this.templates.rebateRate, { code, rate: String(rate) });
  }
}

function fill(template: string, values: Record<string, string>): string {
  return Object.entries(values).reduce((message, [name, value]) => message.split(`{${name}}`).join(value), template);
}
