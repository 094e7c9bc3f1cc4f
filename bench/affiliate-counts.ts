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
