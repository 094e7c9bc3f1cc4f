import { ApiError, type ApiResult } from '../../api/client';
import { formatBasisPoints } from '../../ui/format';

export type ConversionWithReversals = ApiResult<'/api/v1/conversions/{conversionId}', 'get'>;
export type Reversal = NonNullable<ConversionWithReversals['reversals']>[number];
export type ReversedPart = Reversal['movements'][number];

/** All of a conversion, in basis points: the most its reversals add up to. */
export const WHOLE_BPS = 10_000;

/** What the conversion's reversals have not taken yet, in basis points. */
export function remainingBps(reversals: readonly Pick<Reversal, 'share_bps'>[]): number {
  return Math.max(0, WHOLE_BPS - reversals.reduce((sum, reversal) => sum + reversal.share_bps, 0));
}

/**
 * A share typed as a percentage ("100", "50", "12.5", at most two decimals: 0.01 % is one basis point)
 * -> basis points, read digit by digit (no float), within what is left to reverse.
 */
export function parseSharePercent(text: string, remaining: number): { bps: number } | { error: string } {
  const match = /^(\d{1,3})(?:\.(\d{0,2}))?$/.exec(text.trim());
  if (!match) return { error: 'Enter a percentage such as 100, 50 or 12.5 (at most two decimals).' };
  const bps = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (bps < 1) return { error: 'Enter a share above 0%.' };
  if (bps > remaining) {
    return {
      error:
        remaining === WHOLE_BPS
          ? 'At most 100%: all of the conversion.'
          : `At most ${formatBasisPoints(remaining)}: earlier reversals already took back ${formatBasisPoints(WHOLE_BPS - remaining)}.`,
    };
  }
  return { bps };
}

/** Where what a reversal took from one movement came from, each piece with its amount (formatted by `amount`). */
export function partSources(part: ReversedPart, amount: (baseUnits: string) => string): string[] {
  if (part.was === 'pending') return [`${amount(part.amount)} from pending (not paid yet)`];
  const sources: string[] = [];
  if (BigInt(part.from_check) > 0n) sources.push(`${amount(part.from_check)} from the open check`);
  if (BigInt(part.to_debt) > 0n) sources.push(`${amount(part.to_debt)} became debt (its voucher was already out)`);
  return sources;
}

/**
 * The API's refusal of a reversal in words a person acts on; the refusals of the form's fields
 * (VALIDATION_FAILED) stay as the API wrote them, with their details, for the fields.
 */
export function reversalError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const say = (message: string) => new ApiError(error.status, error.code, message);
  switch (error.code) {
    case 'REVERSAL_SHARE_EXCEEDED': {
      const left = /at most (\d+)/.exec(error.details.find((detail) => detail.field === 'share_bps')?.reason ?? '');
      return say(
        left
          ? `Too much: with the earlier reversals this would take back more than all of the conversion. At most ${formatBasisPoints(Number(left[1]))} is left. Nothing was reversed.`
          : 'Too much: with the earlier reversals this would take back more than all of the conversion. Nothing was reversed.',
      );
    }
    case 'REVERSAL_ID_REUSED':
      return say(
        'An earlier attempt from this dialog went through with another share or reason, so this one was refused and nothing more was taken. Cancel to see the reversal made.',
      );
    case 'CONVERSION_NOT_PROCESSED':
      return say('This conversion is not processed yet: it has paid nothing, so there is nothing to reverse.');
    case 'CONVERSION_NOT_FOUND':
      return say('This project has no such conversion. Nothing was reversed.');
    case 'NETWORK_ERROR':
      return say('The server could not be reached. Press Reverse again: the same reversal is sent, and nothing is taken twice.');
    default:
      return error;
  }
}
