import { canonicalUuid, isUuid } from '../../services/rules/ids';
import { csvLine } from '../../services/rules/csv-line';
import { MAX_PAGE_SIZE } from '../../services/rules/pagination';
import { AFFILIATE_COLUMNS } from '../affiliates/affiliate-csv';
import { affiliatePage } from '../affiliates/affiliate-page';
import { CsvOutput } from '../affiliates/csv-output';
import { type CliConfig, wholeNumber } from '../config';
import { CliError, EXIT, type ExitCode } from '../exit-codes';
import { ApiClient } from '../http/api-client';
import { progressOn } from '../progress';

/** The list's filters and sort, as the API names them (GET /api/v1/projects/{projectId}/affiliates). */
export interface ExportAffiliatesOptions {
  project?: string;
  status?: string;
  region?: string;
  audience?: string;
  audienceIds?: string;
  conversions?: string;
  q?: string;
  sortBy?: string;
  order?: string;
  out?: string;
  pageSize?: string;
}

/**
 * `referral export-affiliates`: pages through the affiliate list with its filters (100 a page unless --page-size) and
 * writes one CSV row per affiliate. Pages are offsets: an affiliate joining meanwhile shifts the
 * later pages, so a row seen twice is written once, and a total that changed is reported.
 */
export async function exportAffiliates(options: ExportAffiliatesOptions, config: CliConfig): Promise<ExitCode> {
  const project = options.project || process.env.REFERRAL_PROJECT_ID;
  if (!project) throw new CliError(EXIT.usage, 'no project: set REFERRAL_PROJECT_ID (or pass --project <id>)');
  if (!isUuid(project)) throw new CliError(EXIT.usage, `the project must be a project id (a UUID), not "${project}"`);
  const query = {
    status: options.status,
    region: options.region,
    audience: options.audience,
    audience_ids: options.audienceIds,
    conversions: options.conversions,
    q: options.q,
    sort_by: options.sortBy,
    order: options.order,
    page_size: wholeNumber('--page-size', options.pageSize, MAX_PAGE_SIZE, 1, MAX_PAGE_SIZE),
  };

  const output = new CsvOutput(options.out);
  const seen = new Set<string>();
  // The list's total at the first page and at the last: a change means rows moved between pages.
  const totals: { first?: number; last?: number } = {};
  try {
    await output.write(csvLine(AFFILIATE_COLUMNS.map(([name]) => name)));
    let progress: ReturnType<typeof progressOn> | undefined;
    const api = new ApiClient(config, (message) => (progress ? progress.message(message) : process.stderr.write(`${message}\n`)));
    for (let page = 1; ; page += 1) {
      const { body } = await api.request({
        method: 'GET',
        path: `/api/v1/projects/${canonicalUuid(project)}/affiliates`,
        query: { ...query, page },
        schema: affiliatePage,
      });
      totals.first ??= body.total_results;
      totals.last = body.total_results;
      progress ??= progressOn(process.stderr, body.total_results, 'affiliates');
      for (const affiliate of body.results) {
        if (seen.has(affiliate.id)) continue;
        seen.add(affiliate.id);
        await output.write(csvLine(AFFILIATE_COLUMNS.map(([, value]) => value(affiliate))));
      }
      progress.update(seen.size, `page ${page}`);
      if (body.results.length < body.page_size || page * body.page_size >= body.total_results) break;
    }
    progress?.finish();
    await output.close();
  } catch (error) {
    await output.discard();
    throw error;
  }

  const report = options.out ? process.stdout : process.stderr;
  report.write(`Exported ${seen.size.toLocaleString('en-US')} affiliates${options.out ? ` to ${options.out}` : ''}\n`);
  if (totals.first !== totals.last) {
    process.stderr.write(
      `note: the list changed during the export (${totals.first} then ${totals.last} affiliates); run it again for a still picture\n`,
    );
  }
  return EXIT.ok;
}
