import type pg from 'pg';

/**
 * The counts the agency's per-row triggers keep (affiliates per project and status, and per status
 * and region), written once for a project whose affiliates were inserted with those triggers
 * silenced (`session_replication_role = replica`): kept row by row, a large insert would update one
 * count row per affiliate, each update walking that row's growing version chain (minutes).
 */
export async function writeAffiliateCounts(db: pg.Client, projectId: string): Promise<void> {
  await db.query(
    `INSERT INTO agency.affiliate_counts AS c (project_id, status, affiliates)
     SELECT project_id, status, count(*) FROM agency.affiliates WHERE project_id = $1 GROUP BY project_id, status
     ON CONFLICT (project_id, status) DO UPDATE SET affiliates = c.affiliates + excluded.affiliates`,
    [projectId],
  );
  await db.query(
    `INSERT INTO agency.affiliate_region_counts AS c (project_id, status, region, affiliates)
     SELECT project_id, status, region, count(*) FROM agency.affiliates WHERE project_id = $1 GROUP BY 1, 2, 3
     ON CONFLICT (project_id, status, region) DO UPDATE SET affiliates = c.affiliates + excluded.affiliates`,
    [projectId],
  );
}

/**
 * The affiliates' boards' sizes (0025's affiliate_board_sizes: the affiliates whose figure is above zero, per
 * board) for a project whose affiliate_metrics were inserted with their trigger silenced, as it would have kept them.
 */
export async function writeBoardSizes(db: pg.Client, projectId: string): Promise<void> {
  await db.query(
    `INSERT INTO agency.affiliate_board_sizes AS s (project_id, metric, entries)
     SELECT $1, b.metric, count(*) FILTER (WHERE CASE b.metric WHEN 'referred_users' THEN m.end_users > 0 WHEN 'revenue' THEN m.revenue_usd > 0 ELSE m.volume_usd > 0 END)
     FROM (VALUES ('referred_users'), ('revenue'), ('volume')) AS b (metric)
     LEFT JOIN agency.affiliate_metrics m ON m.project_id = $1
     GROUP BY b.metric
     ON CONFLICT (project_id, metric) DO UPDATE SET entries = s.entries + excluded.entries`,
    [projectId],
  );
}
