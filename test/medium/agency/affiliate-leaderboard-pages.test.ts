import { startAgencyDomain } from '../../helpers/agency-domain';
import { type AgencyHarness, newAffiliate, newCode, newProject } from './fixtures';

const METRICS = [
  ['volume', 'volume_usd'],
  ['revenue', 'revenue_usd'],
  ['referred_users', 'end_users'],
] as const;

/**
 * The affiliates' volume, revenue and referred-users boards page by page: every page laid end to end is
 * exactly the board's order (the figure descending, ties by affiliate id, the newest first; only figures
 * above zero), each entry with its rank, figure and oldest code, and every page says the board's size.
 * The affiliate and its code are looked up after the page's offset (the bench's deep pages), so this pins
 * that the rows keep the page's order and their own affiliate's identifier and code.
 */
describe('affiliate leaderboard pages (domain)', () => {
  let harness: AgencyHarness;
  let projectId: string;
  const size = 45;
  beforeAll(async () => {
    harness = await startAgencyDomain({});
    projectId = newProject();
    for (let index = 0; index < size; index++) {
      const { user } = await newAffiliate(harness, projectId, `Affiliate ${index}`);
      // A second, newer code on some: the board shows the oldest.
      if (index % 4 === 0) await harness.domain.affiliates.addCode(projectId, user, newCode('later'));
    }
    // Figures with ties and zeros (the projection's own path is tested in affiliate-metrics.test.ts).
    await harness.sql.query(
      `UPDATE agency.affiliate_metrics SET volume_usd = (abs(hashtext(affiliate_id::text)) % 7)::numeric / 4,
         revenue_usd = abs(hashtext(affiliate_id::text || 'r')) % 5, end_users = abs(hashtext(affiliate_id::text || 'e')) % 3,
         conversions = abs(hashtext(affiliate_id::text || 'c')) % 11
       WHERE project_id = $1`,
      [projectId],
    );
  });
  afterAll(() => harness.stop());

  /** The board straight from the tables: identifier, figure, conversions and oldest code, in the board's order. */
  const expected = async (column: string): Promise<string[]> => {
    const { rows } = await harness.sql.query<{ entry: string }>(
      `SELECT a.identifier || ':' || m.${column}::text || ':' || m.conversions || ':' ||
              (SELECT c.code FROM agency.affiliate_codes c WHERE c.affiliate_id = a.id ORDER BY c.id LIMIT 1) AS entry
       FROM agency.affiliates a JOIN agency.affiliate_metrics m ON m.affiliate_id = a.id
       WHERE a.project_id = $1 AND m.${column} > 0 ORDER BY m.${column} DESC, a.id DESC`,
      [projectId],
    );
    return rows.map((row) => row.entry);
  };

  it('lays every page end to end in exactly the board’s order, with ranks, figures, codes and the board’s size', async () => {
    for (const [metric, column] of METRICS) {
      const board = await expected(column);
      expect(board.length).toBeGreaterThan(10);
      expect(board.length).toBeLessThan(size);
      const entries: string[] = [];
      const ranks: number[] = [];
      for (let page = 1; ; page++) {
        const read = await harness.domain.leaderboards.page(
          projectId,
          { metric, userType: 'affiliate', user: undefined },
          { page, pageSize: 7, offset: (page - 1) * 7 },
        );
        expect(read.total).toBe(board.length);
        if (read.records.length === 0) break;
        entries.push(...read.records.map((record) => `${record.user.identifier}:${record.total}:${record.conversions}:${record.code}`));
        ranks.push(...read.records.map((record) => record.rank));
      }
      expect(entries).toEqual(board);
      expect(ranks).toEqual(board.map((_, index) => index + 1));
    }
  });
});
