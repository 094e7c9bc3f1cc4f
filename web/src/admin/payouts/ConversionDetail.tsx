import type { ApiResult } from '../../api/client';
import { formatDateTime, formatDecimal, formatTokenAmount, formatUsd } from '../../ui/format';
import { Empty } from '../../ui/states';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { type Fact, Facts } from '../../ui/Facts';
import { ConversionReversals } from './ConversionReversals';
import { KIND_LABELS } from './movement-kinds';
import { AffiliateLink } from '../affiliates/AffiliateLink';

type Conversion = ApiResult<'/api/v1/projects/{projectId}/conversions', 'get'>['results'][number];

/** Why a pending movement waits, in words. */
const PENDING_LABELS = { hold: 'held', approval: 'waits for approval', review: 'in review' } as const;
/** The terms' cap that cut a movement, in words. */
const CAP_LABELS = { per_conversion: 'per conversion', per_end_user: 'per end user', per_affiliate_window: 'per affiliate window' } as const;

/** One conversion (in a SidePanel beside the list): where it stands, who it was attributed to, the movements it wrote, and its reversals. */
export function ConversionDetail({ conversion }: { conversion: Conversion }) {
  const { attribution } = conversion;
  const facts: Fact[] = [
    ['Status', conversion.status],
    ['Name', conversion.name],
    ['User', `${conversion.user_identifier} (${conversion.user_identifier_type})`],
    ['Occurred', formatDateTime(conversion.occurred_at)],
    ['Received', formatDateTime(conversion.received_at)],
    ['Processed', formatDateTime(conversion.processed_at)],
    ['Volume', conversion.volume_usd === null ? '—' : formatUsd(conversion.volume_usd)],
    ['Revenue', conversion.revenue_usd === null ? '—' : formatUsd(conversion.revenue_usd)],
    ['reward_base (base units)', conversion.reward_base === null ? '—' : formatDecimal(conversion.reward_base)],
    ['Referral code', conversion.referral_code ?? '—'],
    [
      'Affiliate',
      attribution ? (
        <AffiliateLink identifier={attribution.affiliate.user_identifier} identifierType={attribution.affiliate.user_identifier_type} whole />
      ) : (
        'Nobody referred the user'
      ),
    ],
    [
      'Master affiliate',
      attribution?.master ? (
        <>
          <AffiliateLink identifier={attribution.master.user_identifier} identifierType={attribution.master.user_identifier_type} whole /> (spread{' '}
          {attribution.spread_bps ?? 0} bps)
        </>
      ) : (
        '—'
      ),
    ],
  ];
  // The share of the affiliate's reward its code gave the user, frozen when paid (docs/claims.md#rebates).
  if (attribution && attribution.user_rebate_rate_bps > 0)
    facts.push(['User rebate', `${attribution.user_rebate_rate_bps} bps of the affiliate’s reward`]);
  // Sides checked against an allowlist of the terms: whether they could earn, and against which audience.
  // The master is not checked itself: its spread follows its affiliate.
  const sides = conversion.rewards
    ? ([
        ['End user', '', conversion.rewards.end_user],
        ['Affiliate', '', conversion.rewards.affiliate],
        ['Master affiliate', 'its affiliate is ', conversion.rewards.master],
      ] as const)
    : [];
  for (const [side, whose, reward] of sides) {
    if (!reward || reward.allowlist_audience_id === null) continue;
    const audience = `audience ${reward.allowlist_audience_id}`;
    facts.push([
      `${side} allowlist`,
      reward.status === 'paid' ? `Paid: ${whose}a member of ${audience}` : `Not eligible: ${whose}not a member of ${audience}`,
    ]);
  }
  if (conversion.failure_reason) facts.push(['Why it failed', conversion.failure_reason]);
  return (
    <section aria-labelledby="conversion-detail-title">
      <h2 id="conversion-detail-title">
        Conversion <span className="identifier">{conversion.id}</span>
      </h2>
      <Facts facts={facts} />
      <h4 id="movements-title">Movements</h4>
      {conversion.movements.length === 0 ? (
        <Empty>{conversion.status === 'accepted' ? 'Not paid yet: the job has not processed it.' : 'It paid nobody.'}</Empty>
      ) : (
        <ScrollTable
          labelledBy="movements-title"
          caption="What the conversion paid, to whom"
          columns={['Kind', 'Paid to', numeric('Amount'), 'Capped (never paid)', 'Status', 'Available', 'Claim check', 'Written']}
        >
          {conversion.movements.map((movement) => (
            <tr key={`${movement.kind}:${movement.user_identifier_type}:${movement.user_identifier}:${movement.rebate}`}>
              <td>{movement.rebate ? `${KIND_LABELS[movement.kind]} (rebate from the affiliate’s reward)` : KIND_LABELS[movement.kind]}</td>
              <td className="identifier">
                {/* An end user (a rebate too) has no affiliate page; the affiliate and its master have one. */}
                {movement.kind === 'end_user_payout' ? (
                  movement.user_identifier
                ) : (
                  <AffiliateLink identifier={movement.user_identifier} identifierType={movement.user_identifier_type} whole />
                )}
              </td>
              <td className="number" title={`${movement.amount} base units`}>
                {formatTokenAmount(movement.amount, movement.currency)}
              </td>
              <td title={movement.capped_amount === null ? undefined : `${movement.capped_amount} base units`}>
                {movement.capped_amount === null || movement.capped_by === null
                  ? '—'
                  : `${formatTokenAmount(movement.capped_amount, movement.currency)} (${CAP_LABELS[movement.capped_by]})`}
              </td>
              <td>{movement.pending_reason === null ? movement.status : `${movement.status} (${PENDING_LABELS[movement.pending_reason]})`}</td>
              <td>{formatDateTime(movement.available_at)}</td>
              <td>{movement.status === 'available' ? movement.payout_status : '—'}</td>
              <td>{formatDateTime(movement.created_at)}</td>
            </tr>
          ))}
        </ScrollTable>
      )}
      <ConversionReversals key={conversion.id} conversionId={conversion.id} status={conversion.status} />
    </section>
  );
}
