import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router-dom';
import type { ApiResult } from '../../api/client';
import { CONVERSION_RATE_HELP, formatConversionRate, formatDateTime, formatDecimal, formatUsd, shortIdentifier } from '../../ui/format';
import { AffiliateLink } from './AffiliateLink';
import { SORT_COLUMNS, type SortColumn } from './filters';

export type AffiliateRow = ApiResult<'/api/v1/projects/{projectId}/affiliates', 'get'>['results'][number];

const column = createColumnHelper<AffiliateRow>();

/** Which list column sorts by which API sort key (the others are not sortable): a sortable column's id is its sort key. */
export const SORT_KEY_OF_COLUMN: Record<string, SortColumn> = Object.fromEntries(SORT_COLUMNS.map(({ value }) => [value, value]));

export const affiliateColumns = [
  column.accessor('identifier', {
    header: 'Affiliate',
    cell: (info) => (
      <Link to={`${encodeURIComponent(info.row.original.identifier_type)}/${encodeURIComponent(info.getValue())}`} title={info.getValue()}>
        <span className="affiliate-name">{info.row.original.name || shortIdentifier(info.getValue())}</span>
        <span className="subtle"> {shortIdentifier(info.getValue())}</span>
      </Link>
    ),
  }),
  column.accessor('status', { header: 'Status' }),
  column.accessor('region', { header: 'Region', cell: (info) => info.getValue() ?? '—' }),
  column.accessor((row) => row.active_tier?.name ?? '—', { id: 'tier', header: 'Tier' }),
  column.accessor('tax_status', { header: 'Tax' }),
  column.accessor((row) => (row.is_master ? 'master' : row.master ? `sub of ${row.master.identifier}` : '—'), {
    id: 'master',
    header: 'Master',
    // The master's name when the list already holds its row (no read per row); linked to its affiliate page either way.
    cell: (info) => {
      const { master, is_master: isMaster } = info.row.original;
      if (isMaster || !master) return info.getValue();
      const row = info.table.options.data.find((other) => other.id === master.id);
      return (
        <>
          sub of <AffiliateLink identifier={master.identifier} identifierType={master.identifier_type} name={row?.name} />
        </>
      );
    },
  }),
  column.accessor('volume_usd', { header: 'Volume', cell: (info) => formatUsd(info.getValue()) }),
  column.accessor('revenue_usd', { header: 'Revenue', cell: (info) => formatUsd(info.getValue()) }),
  column.accessor('conversions', { header: 'Conversions', cell: (info) => formatDecimal(info.getValue()) }),
  column.accessor('end_users', { header: 'End users', cell: (info) => formatDecimal(info.getValue()) }),
  column.accessor('clicks', { header: 'Clicks', cell: (info) => formatDecimal(info.getValue()) }),
  column.accessor((row) => formatConversionRate(row.end_users, row.clicks), {
    id: 'conversion_rate',
    header: () => <span title={CONVERSION_RATE_HELP}>Conversion rate</span>,
  }),
  column.accessor('referred_volume_usd', { header: 'Referred volume', cell: (info) => formatUsd(info.getValue()) }),
  column.accessor('joined_at', { header: 'Joined', cell: (info) => formatDateTime(info.getValue()) }),
];

/** Right-aligned figures. */
export const NUMERIC_COLUMNS = new Set(['volume_usd', 'revenue_usd', 'conversions', 'end_users', 'clicks', 'conversion_rate', 'referred_volume_usd']);
