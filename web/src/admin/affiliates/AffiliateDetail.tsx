import { AffiliatePoints } from './AffiliatePoints';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation, useParams } from 'react-router-dom';
import type { ApiResult } from '../../api/client';
import {
  CONVERSION_RATE_HELP,
  formatConversionRate,
  formatCount,
  formatCurrencyAmount,
  formatDateTime,
  formatDecimal,
  formatUsd,
} from '../../ui/format';
import { Pager } from '../../ui/Pager';
import { Empty, ListStates, LoadError, Loading, Notice } from '../../ui/states';
import { useProject } from '../session';
import { AffiliateCodes } from './AffiliateCodes';
import { ClicksChart } from './ClicksChart';
import { FlagActions } from './FlagActions';
import { historySentence } from './history';
import { InviteCodes } from './InviteCodes';
import { ReferralLevels } from './ReferralLevels';
import { AffiliateEdit } from './AffiliateEdit';
import { SuspendActions } from './SuspendActions';
import { TierProtection } from './TierProtection';
import { WritesOnly } from '../key-role';

type Affiliate = ApiResult<'/api/v1/projects/{projectId}/affiliates/{userIdentifier}', 'get'>;
const PAGE_SIZE = 10;

/** One affiliate: its actions (flag, suspend or reactivate; name and region; codes; tier protection), its figures, codes (clicks, rebate rates), tiers and protection, memberships and badges, invite codes, referral tree and history. */
export function AffiliateDetail() {
  const { projectId, api } = useProject();
  const { identifier = '', identifierType = 'evm_address' } = useParams();
  // The create form comes here saying the affiliate was created.
  const notice = (useLocation().state as { notice?: string } | null)?.notice;
  const affiliate = useQuery({
    queryKey: ['affiliate', projectId, identifierType, identifier],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}', {
        path: { projectId, userIdentifier: identifier },
        query: { identifier_type: identifierType },
        signal,
      }),
  });
  if (affiliate.isPending) return <Loading label="Loading the affiliate…" />;
  if (affiliate.isError) return <LoadError query={affiliate} />;
  const data = affiliate.data;
  return (
    <article aria-labelledby="affiliate-title">
      <p className="breadcrumb">
        <Link to="../..">Affiliates</Link> /
      </p>
      <h1 id="affiliate-title">{data.name || data.identifier}</h1>
      <Notice notice={notice} />
      <p className="identifier">
        {data.identifier} <span className="subtle">({data.identifier_type})</span>
      </p>
      <WritesOnly>
        <div className="inline-fields">
          <FlagActions identifier={data.identifier} identifierType={data.identifier_type} status={data.status} />
          <SuspendActions identifier={data.identifier} identifierType={data.identifier_type} status={data.status} />
        </div>
      </WritesOnly>
      <Figures affiliate={data} />
      <WritesOnly>
        <AffiliateEdit identifier={data.identifier} identifierType={data.identifier_type} name={data.name} region={data.region} />
      </WritesOnly>
      <AffiliatePoints identifier={data.identifier} identifierType={data.identifier_type} />
      <AffiliateCodes identifier={data.identifier} identifierType={data.identifier_type} codes={data.codes} />
      <ClicksChart identifier={data.identifier} identifierType={data.identifier_type} codes={data.codes.map((code) => code.code)} />
      <div className="columns">
        <Tiers affiliate={data} />
        <Memberships affiliate={data} />
      </div>
      <InviteCodes identifier={data.identifier} identifierType={data.identifier_type} />
      <ReferralLevels tree={data.referral_tree} affiliateLabel={data.name || data.identifier} />
      <ReferralTree identifier={data.identifier} identifierType={data.identifier_type} />
      <History identifier={data.identifier} identifierType={data.identifier_type} />
    </article>
  );
}

function Figures({ affiliate }: { affiliate: Affiliate }) {
  return (
    <section aria-labelledby="figures-title">
      <h2 id="figures-title">Figures</h2>
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd>
            {affiliate.status}
            {affiliate.suspension_reason ? ` (${affiliate.suspension_reason})` : ''}
            {affiliate.flag_reason ? ` (${affiliate.flag_reason})` : ''}
          </dd>
        </div>
        {affiliate.status === 'flagged' ? (
          <div>
            <dt>Flagged since</dt>
            <dd>{formatDateTime(affiliate.flagged_at)}</dd>
          </div>
        ) : null}
        <div>
          <dt>Region</dt>
          <dd>{affiliate.region ?? '—'}</dd>
        </div>
        <div>
          <dt>Tax status</dt>
          <dd>{affiliate.tax_status}</dd>
        </div>
        <div>
          <dt>Joined</dt>
          <dd>{formatDateTime(affiliate.joined_at)}</dd>
        </div>
        <div>
          <dt>Volume</dt>
          <dd>{formatUsd(affiliate.volume_usd)}</dd>
        </div>
        <div>
          <dt>Revenue</dt>
          <dd>{formatUsd(affiliate.revenue_usd)}</dd>
        </div>
        <div>
          <dt>Conversions</dt>
          <dd>{formatDecimal(affiliate.conversions)}</dd>
        </div>
        <div>
          <dt>End users</dt>
          <dd>{formatDecimal(affiliate.end_users)}</dd>
        </div>
        <div>
          <dt>Converting users</dt>
          <dd>{formatDecimal(affiliate.converting_users)}</dd>
        </div>
        <div>
          <dt>Clicks</dt>
          <dd data-testid="figure-clicks">{formatDecimal(affiliate.clicks)}</dd>
        </div>
        <div>
          <dt>
            <span title={CONVERSION_RATE_HELP}>Conversion rate</span>
          </dt>
          <dd data-testid="figure-conversion-rate">{formatConversionRate(affiliate.end_users, affiliate.clicks)}</dd>
        </div>
        <div>
          <dt>Master</dt>
          <dd>{affiliate.is_master ? 'is a master affiliate' : (affiliate.master?.identifier ?? '—')}</dd>
        </div>
      </dl>
      {affiliate.earnings.length > 0 ? (
        <>
          <h3 id="earnings-title">Earnings</h3>
          <ul aria-labelledby="earnings-title">
            {affiliate.earnings.map((earning, index) => (
              <li key={index} data-testid="affiliate-earning" title={`${earning.amount} base units`}>
                {formatCurrencyAmount(earning)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function Tiers({ affiliate }: { affiliate: Affiliate }) {
  return (
    <section aria-labelledby="tiers-title">
      <h2 id="tiers-title">Tier</h2>
      <dl className="facts">
        <div>
          <dt>In force</dt>
          <dd>{affiliate.active_tier ? `${affiliate.active_tier.name} (rank ${affiliate.active_tier.rank})` : 'none'}</dd>
        </div>
        <div>
          <dt>Qualifies for</dt>
          <dd>{affiliate.current_tier ? `${affiliate.current_tier.name} (rank ${affiliate.current_tier.rank})` : 'none'}</dd>
        </div>
        <div>
          <dt>Protection</dt>
          <dd>
            {affiliate.tier_protection
              ? `${affiliate.tier_protection.days_remaining} days left, until ${formatDateTime(affiliate.tier_protection.expires_at)}`
              : 'none'}
          </dd>
        </div>
      </dl>
      <TierProtection
        identifier={affiliate.identifier}
        identifierType={affiliate.identifier_type}
        protectedNow={affiliate.tier_protection !== null}
      />
    </section>
  );
}

function Memberships({ affiliate }: { affiliate: Affiliate }) {
  return (
    <section aria-labelledby="memberships-title">
      <h2 id="memberships-title">Audiences and badges</h2>
      {affiliate.audiences.length === 0 ? (
        <Empty>In no audience.</Empty>
      ) : (
        <ul>
          {affiliate.audiences.map((audience) => (
            <li key={audience.id}>
              <Link to={`/admin/audiences/${audience.id}`}>{audience.name}</Link>
            </li>
          ))}
        </ul>
      )}
      <h3>Badges</h3>
      {affiliate.badges.length === 0 ? (
        <Empty>No badges.</Empty>
      ) : (
        <ul className="badges">
          {affiliate.badges.map((badge) => (
            <li key={badge.audience_id}>
              <strong>{badge.name}</strong>
              {badge.description ? ` — ${badge.description}` : ''}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The users this affiliate referred (its first level), with what each brought. */
function ReferralTree({ identifier, identifierType }: { identifier: string; identifierType: string }) {
  const { projectId, api } = useProject();
  const [page, setPage] = useState(1);
  const referrals = useQuery({
    queryKey: ['referrals', projectId, identifierType, identifier, page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/referrals', {
        path: { projectId, userIdentifier: identifier },
        query: { identifier_type: identifierType, page, page_size: PAGE_SIZE },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="referrals-title">
      <h2 id="referrals-title">Referral tree</h2>
      <ListStates query={referrals} loading="Loading referred users…" empty="Has referred nobody yet." />
      {referrals.data && referrals.data.results.length > 0 ? (
        <>
          <ul className="tree" aria-label={`Users referred by ${identifier}`}>
            {referrals.data.results.map((referred) => (
              <li key={`${referred.identifier_type}:${referred.identifier}`}>
                <span className="identifier">{referred.identifier}</span> <span className="subtle">with code {referred.code}</span> ·{' '}
                {formatUsd(referred.volume_usd)} volume · {formatCount(referred.conversions, 'conversion')} · since{' '}
                {formatDateTime(referred.referred_at)}
              </li>
            ))}
          </ul>
          <Pager label="Referred user pages" list={{ page, page_size: PAGE_SIZE, total_results: referrals.data.total_results }} onPage={setPage} />
        </>
      ) : null}
    </section>
  );
}

function History({ identifier, identifierType }: { identifier: string; identifierType: string }) {
  const { projectId, api } = useProject();
  const [page, setPage] = useState(1);
  const history = useQuery({
    queryKey: ['history', projectId, identifierType, identifier, page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/history', {
        path: { projectId, userIdentifier: identifier },
        query: { identifier_type: identifierType, page, page_size: PAGE_SIZE },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ListStates query={history} loading="Loading the history…" empty="Nothing has happened yet." />
      {history.data && history.data.results.length > 0 ? (
        <>
          <ol className="history">
            {history.data.results.map((item, index) => (
              <li key={`${item.at}:${index}`} title={item.type === 'payouts' ? `${String(item.data.amount)} base units` : undefined}>
                <time dateTime={item.at}>{formatDateTime(item.at)}</time> {historySentence(item)}
              </li>
            ))}
          </ol>
          <Pager label="History pages" list={{ page, page_size: PAGE_SIZE, total_results: history.data.total_results }} onPage={setPage} />
        </>
      ) : null}
    </section>
  );
}
