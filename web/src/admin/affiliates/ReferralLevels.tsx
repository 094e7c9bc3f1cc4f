import { Link } from 'react-router-dom';
import type { ApiResult } from '../../api/client';
import { formatCount, formatCurrencyAmount, formatDecimal, formatUsd } from '../../ui/format';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { Empty } from '../../ui/states';
import { type NestedNode, nestReferralTree } from './referral-tree';

type ReferralTree = ApiResult<'/api/v1/projects/{projectId}/affiliates/{userIdentifier}', 'get'>['referral_tree'];

/**
 * The affiliate's four referral levels (docs/claims.md#referral-levels): per level the affiliates
 * counted there, the volume and what it was paid, then its downline affiliates nested under the
 * affiliate that referred each, every one a link to its own detail (Tab walks the list in order).
 */
export function ReferralLevels({ tree, affiliateLabel }: { tree: ReferralTree; affiliateLabel: string }) {
  const nested = nestReferralTree(tree.nodes);
  return (
    <section aria-labelledby="levels-title">
      <h2 id="levels-title">Referral levels</h2>
      <ScrollTable
        labelledBy="levels-title"
        caption="Per referral level: the affiliates there, the volume of their conversions and what this affiliate earned from them"
        columns={['Level', numeric('Affiliates'), numeric('Volume'), numeric('Revenue'), numeric('Conversions'), 'Earnings']}
      >
        {tree.levels.map((level) => (
          <tr key={level.level} data-testid="referral-level">
            <td>Level {level.level}</td>
            <td className="number">{formatDecimal(level.affiliates)}</td>
            <td className="number">{formatUsd(level.volume_usd)}</td>
            <td className="number">{formatUsd(level.revenue_usd)}</td>
            <td className="number">{formatDecimal(level.conversions)}</td>
            <td>{level.earnings.length === 0 ? 'Nothing yet' : level.earnings.map(formatCurrencyAmount).join(', ')}</td>
          </tr>
        ))}
      </ScrollTable>
      <h3 id="downline-title">Downline affiliates</h3>
      {nested.length === 0 ? (
        <Empty>No affiliate was referred below {affiliateLabel} yet.</Empty>
      ) : (
        <DownlineList nodes={nested} label={`Affiliates referred below ${affiliateLabel}`} />
      )}
      {tree.truncated ? (
        <p className="help" data-testid="downline-truncated">
          The downline has more affiliates than the {formatDecimal(tree.nodes.length)} listed here (highest volume first at each level); the counts
          per level above include all of them.
        </p>
      ) : null}
    </section>
  );
}

function DownlineList({ nodes, label }: { nodes: NestedNode[]; label?: string }) {
  return (
    <ul className="tree" aria-label={label}>
      {nodes.map(({ node, children }) => (
        <li key={node.affiliate_id} data-testid="downline-node">
          <Link to={`/admin/affiliates/${encodeURIComponent(node.identifier_type)}/${encodeURIComponent(node.identifier)}`}>{node.identifier}</Link>{' '}
          <span className="subtle">
            level {node.level} · {formatUsd(node.volume_usd)} volume · {formatCount(node.converting_users, 'converting user')} of{' '}
            {formatCount(node.end_users, 'referred user')}
          </span>
          {children.length > 0 ? <DownlineList nodes={children} /> : null}
        </li>
      ))}
    </ul>
  );
}
