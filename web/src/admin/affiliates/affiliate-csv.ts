import { AFFILIATE_COLUMNS } from '../../../../services/rules/affiliate-csv';
import type { CsvField } from '../../../../services/rules/csv-line';
import type { ApiResult } from '../../api/client';

/** A listed affiliate (columns.tsx's AffiliateRow, named here from the API's types so that tests outside the web's JSX settings can load this file). */
type AffiliateRow = ApiResult<'/api/v1/projects/{projectId}/affiliates', 'get'>['results'][number];

/**
 * The export's columns, in order, as the CLI's `referral export-affiliates` writes them: one list, services/rules/affiliate-csv.ts,
 * over the list as the API's types name it.
 */
export const AFFILIATE_CSV_COLUMNS: ReadonlyArray<[string, (affiliate: AffiliateRow) => CsvField]> = AFFILIATE_COLUMNS;
