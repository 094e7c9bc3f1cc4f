import type { ApiBody } from '../../api/client';
import { tokenAmount } from '../../ui/format';
import { type PayoutTerms, parseTokenAmount } from './reward';

/**
 * Caps as the terms editor handles them: each amount typed in whole tokens of the terms' currency
 * (blank: no cap), sent as base units like a fixed reward; the affiliate's window has its days.
 */
type Caps = NonNullable<ApiBody<'/api/v1/projects/{projectId}/payout-terms/{conversionName}', 'put'>['caps']>;

export interface CapsDraft {
  perConversion: string;
  perEndUser: string;
  windowAmount: string;
  windowDays: string;
}

export const NO_CAPS_DRAFT: CapsDraft = { perConversion: '', perEndUser: '', windowAmount: '', windowDays: '' };

/** The draft of stored caps: base units back in whole tokens. */
export function capsDraftOf(caps: PayoutTerms['caps'] | undefined, decimals: number): CapsDraft {
  if (!caps) return NO_CAPS_DRAFT;
  const tokens = (value: string | null) => (value === null ? '' : tokenAmount(value, decimals));
  return {
    perConversion: tokens(caps.per_conversion),
    perEndUser: tokens(caps.per_end_user),
    windowAmount: tokens(caps.per_affiliate_window?.amount ?? null),
    windowDays: caps.per_affiliate_window ? String(caps.per_affiliate_window.days) : '',
  };
}

/** The caps to send, with a problem per field (named as the API names it) for what is not a cap. */
export function capsOf(draft: CapsDraft, decimals: number): { caps: Caps; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const amount = (text: string, field: string): string | null => {
    if (text.trim() === '') return null;
    const parsed = parseTokenAmount(text, decimals);
    if ('error' in parsed) problems[field] = parsed.error;
    else if (parsed.baseUnits === '0') problems[field] = 'Enter an amount above 0, or leave it blank for no cap.';
    else return parsed.baseUnits;
    return null;
  };
  const perConversion = amount(draft.perConversion, 'caps.per_conversion');
  const perEndUser = amount(draft.perEndUser, 'caps.per_end_user');
  let window: Caps['per_affiliate_window'] = null;
  const hasAmount = draft.windowAmount.trim() !== '';
  const daysText = draft.windowDays.trim();
  if (hasAmount || daysText !== '') {
    const windowAmount = hasAmount ? amount(draft.windowAmount, 'caps.per_affiliate_window.amount') : null;
    if (!hasAmount) problems['caps.per_affiliate_window.amount'] = 'Enter the most an affiliate earns in the window, or clear the days.';
    const days = /^\d{1,3}$/.test(daysText) ? Number(daysText) : NaN;
    if (!(days >= 1 && days <= 365)) problems['caps.per_affiliate_window.days'] = 'Enter a whole number of days from 1 to 365.';
    else if (windowAmount !== null) window = { amount: windowAmount, days };
  }
  return { caps: { per_conversion: perConversion, per_end_user: perEndUser, per_affiliate_window: window }, problems };
}
