import { type Kysely, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import { type PagedRecords, readPage } from '../../platform/db/paged-list';
import type { AgencyDatabase } from '../database';
import { findAffiliateId, lockAffiliate } from './affiliate-lock';

export interface InviteCodeUse {
  user: UserIdentifier;
  usedAt: Date;
}

export interface InviteCodeRecord {
  code: string;
  createdAt: Date;
  /** null: unlimited; 0: disabled. */
  maxUses: number | null;
  uses: number;
  /** The users referred through the code now (an ended referral leaves; its use stays counted). */
  usedBy: InviteCodeUse[];
  /** Clicks counted for the code (pageviews naming it, per tracking id and day). */
  clicks: number;
}

export type GenerateOutcome = { kind: 'generated'; codes: string[] } | { kind: 'no_affiliate' } | { kind: 'limit_reached' };

/** How many rounds of fresh codes a generation tries when some collide with codes the project holds. */
const GENERATION_ROUNDS = 5;

/**
 * Invite codes (migration 0022): generated for an affiliate, each with its max_uses and uses. A use is
 * taken by the referral's own transaction (referral.repository.ts, takeInviteUse).
 */
export class InviteCodeRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  /**
   * `quantity` new codes for the user's affiliate, drawn from `draw`. The affiliate's row is locked while
   * its codes are counted (at most `maxPerAffiliate`); a drawn code the project holds already (either
   * kind, any letter case) is skipped and drawn again.
   */
  async generate(
    projectId: string,
    user: UserIdentifier,
    request: { quantity: number; maxUses: number | null; maxPerAffiliate: number },
    draw: () => string,
    now: Date,
  ): Promise<GenerateOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const affiliate = await lockAffiliate(trx, projectId, user);
      if (!affiliate) return { kind: 'no_affiliate' };
      const { held } = await trx
        .selectFrom('invite_codes')
        .select((eb) => eb.fn.countAll<string>().as('held'))
        .where('affiliate_id', '=', affiliate.id)
        .executeTakeFirstOrThrow();
      if (Number(held) + request.quantity > request.maxPerAffiliate) return { kind: 'limit_reached' };
      const codes: string[] = [];
      for (let round = 0; round < GENERATION_ROUNDS && codes.length < request.quantity; round++) {
        const drawn = Array.from({ length: request.quantity - codes.length }, draw);
        // Codes an affiliate holds are skipped here; the trigger of migration 0022 refuses one registered meanwhile.
        const { rows } = await sql<{ code: string }>`
          INSERT INTO invite_codes (project_id, code, affiliate_id, max_uses, created_at, updated_at)
          SELECT ${projectId}, d.code, ${affiliate.id}, ${request.maxUses}, ${now}, ${now}
          FROM unnest(${drawn}::text[]) AS d (code)
          WHERE NOT EXISTS (SELECT 1 FROM affiliate_codes c WHERE c.project_id = ${projectId} AND lower(c.code) = lower(d.code))
          ON CONFLICT (project_id, lower(code)) DO NOTHING
          RETURNING code`.execute(trx);
        codes.push(...rows.map((row) => row.code));
      }
      if (codes.length < request.quantity) throw new Error('could not draw enough unused invite codes');
      return { kind: 'generated', codes };
    });
  }

  /** The user's invite codes, newest first; an empty page when the user is no affiliate. */
  async list(projectId: string, user: UserIdentifier, page: Page): Promise<PagedRecords<InviteCodeRecord>> {
    const affiliateId = await findAffiliateId(this.db, projectId, user);
    if (affiliateId === undefined) return { records: [], total: 0 };
    const { records: rows, total } = await readPage(
      this.db.selectFrom('invite_codes').where('affiliate_id', '=', affiliateId),
      (matching) => matching.select(['code', 'created_at', 'max_uses', 'uses']).orderBy('created_at', 'desc').orderBy('code'),
      page,
    );
    if (rows.length === 0) return { records: [], total };
    const lowered = rows.map((row) => row.code.toLowerCase());
    const [referred, clicks] = await Promise.all([
      this.db
        .selectFrom('referrals')
        .select(['code', 'identifier', 'identifier_type', 'referred_at'])
        .where('project_id', '=', projectId)
        .where('affiliate_id', '=', affiliateId)
        .where(sql`lower(code)`, 'in', lowered)
        .orderBy('referred_at')
        .orderBy('identifier')
        .execute(),
      this.db
        .selectFrom('code_clicks')
        .select((eb) => ['code', eb.fn.countAll<string>().as('clicks')])
        .where('project_id', '=', projectId)
        .where('code', 'in', lowered)
        .groupBy('code')
        .execute(),
    ]);
    const clicksOf = new Map(clicks.map((row) => [row.code, Number(row.clicks)]));
    return {
      total,
      records: rows.map((row) => ({
        code: row.code,
        createdAt: row.created_at,
        maxUses: row.max_uses,
        uses: row.uses,
        usedBy: referred
          .filter((referral) => referral.code.toLowerCase() === row.code.toLowerCase())
          .map((referral) => ({ user: { identifier: referral.identifier, identifierType: referral.identifier_type }, usedAt: referral.referred_at })),
        clicks: clicksOf.get(row.code.toLowerCase()) ?? 0,
      })),
    };
  }

  /** Sets a code's max_uses (null: unlimited, 0: disabled); the uses taken stay. Undefined when the project has no such invite code. */
  async setMaxUses(
    projectId: string,
    code: string,
    maxUses: number | null,
    now: Date,
  ): Promise<{ code: string; maxUses: number | null; uses: number } | undefined> {
    const row = await this.db
      .updateTable('invite_codes')
      .set({ max_uses: maxUses, updated_at: now })
      .where('project_id', '=', projectId)
      .where(sql`lower(code)`, '=', code.toLowerCase())
      .returning(['code', 'max_uses', 'uses'])
      .executeTakeFirst();
    return row && { code: row.code, maxUses: row.max_uses, uses: row.uses };
  }

  /**
   * Whether the code would refer a user now: an affiliate code of an active affiliate, or an invite code
   * of an active affiliate with a use left.
   */
  async usable(projectId: string, code: string): Promise<boolean> {
    const { rows } = await sql<{ usable: boolean }>`
      SELECT EXISTS (
        SELECT 1 FROM affiliate_codes c JOIN affiliates a ON a.id = c.affiliate_id
        WHERE c.project_id = ${projectId} AND lower(c.code) = ${code.toLowerCase()} AND a.status = 'active'
      ) OR EXISTS (
        SELECT 1 FROM invite_codes c JOIN affiliates a ON a.id = c.affiliate_id
        WHERE c.project_id = ${projectId} AND lower(c.code) = ${code.toLowerCase()} AND a.status = 'active'
          AND (c.max_uses IS NULL OR c.uses < c.max_uses)
      ) AS usable`.execute(this.db);
    return rows[0]?.usable === true;
  }
}
