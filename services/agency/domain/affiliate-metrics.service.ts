import type { Clock } from '../../platform/clock';
import { isUuid } from '../../rules/ids';
import type { Logger } from '../../platform/logger';
import type { AffiliateMetricsRepository, ConversionFact, MetricCurrency, ReversalFact } from '../repositories/affiliate-metrics.repository';
import { requireProjectId } from '../../rules/subject';

/** The claim service's paid conversions, page by page (ListPaidConversions over gRPC in the service). */
export interface PaidConversionSource {
  page(
    projectId: string,
    afterId: string | null,
    limit: number,
  ): Promise<{ facts: ConversionFact[]; reversals: ReversalFact[]; currencies: MetricCurrency[]; nextAfterId: string | null }>;
}

export interface RebuildResult {
  /** Conversions the claim service listed. */
  listed: number;
  /** Of those, facts the projection did not have (lost events, or events not applied yet). */
  restored: number;
  /** Reversals of those conversions the projection had not applied yet (their events lost, or not applied yet). */
  restoredReversals: number;
  /** Facts the projection holds once rebuilt, and of those, attributed to an affiliate. */
  conversions: number;
  attributed: number;
}

/** Conversions asked for per page. */
const REBUILD_PAGE = 1_000;

/**
 * Rebuilds a project's affiliate metrics from the claim service: every paid conversion
 * becomes a fact if it is not one yet (ON CONFLICT DO NOTHING, no lock: an event applying the same
 * conversion meanwhile finds the fact there and adds nothing), then every aggregate is recomputed from
 * the facts in one transaction under the project's exclusive lock, which events take in shared mode:
 * an event is applied wholly before the recomputation (and counted in it) or wholly after it (on top
 * of it). The end state equals what the events alone would have built. Safe to run again at any time.
 * Each conversion's reversals come with it: those not applied yet are applied to the facts (each once,
 * by its id, so its event adds nothing after), before the recomputation sums the facts, net of them.
 */
export class AffiliateMetricsService {
  constructor(
    private readonly metrics: AffiliateMetricsRepository,
    private readonly source: PaidConversionSource,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async rebuild(projectIdInput: string): Promise<RebuildResult> {
    const projectId = requireProjectId(projectIdInput);
    let afterId: string | null = null;
    let listed = 0;
    let restored = 0;
    let restoredReversals = 0;
    do {
      const page = await this.source.page(projectId, afterId, REBUILD_PAGE);
      await this.metrics.rememberCurrencies(projectId, page.currencies);
      const facts = await this.knownAffiliatesOnly(projectId, page.facts);
      restored += await this.metrics.insertFacts(projectId, facts, this.clock.now());
      // A reversal of a conversion left out (unknown affiliates) finds no fact and is left out with it.
      restoredReversals += await this.metrics.applyReversals(projectId, page.reversals, this.clock.now());
      listed += page.facts.length;
      afterId = page.nextAfterId;
    } while (afterId !== null);
    await this.recompute(projectId);
    const counts = await this.metrics.factCounts(projectId);
    this.logger.info({ project_id: projectId, listed, restored, restored_reversals: restoredReversals, ...counts }, 'affiliate metrics rebuilt');
    return { listed, restored, restoredReversals, ...counts };
  }

  /** Every aggregate of the project from its facts, under the exclusive lock. */
  async recompute(projectIdInput: string): Promise<void> {
    const projectId = requireProjectId(projectIdInput);
    await this.metrics.recompute(projectId, this.clock.now());
  }

  /**
   * Conversions naming an affiliate this project does not have (another deployment's ids), as affiliate,
   * master or upline level, are skipped, as the consumer skips their events.
   */
  private async knownAffiliatesOnly(projectId: string, facts: ConversionFact[]): Promise<ConversionFact[]> {
    const named = (fact: ConversionFact) => [fact.affiliateId, fact.masterId, ...(fact.upline ?? []).map((level) => level.affiliateId)];
    const ids = [...new Set(facts.flatMap(named).filter((id): id is string => id !== null && isUuid(id)))];
    if (ids.length === 0) return facts;
    const known = await this.metrics.knownAffiliates(projectId, ids);
    const skipped = facts.filter((fact) => named(fact).some((id) => id !== null && !known.has(id)));
    if (skipped.length > 0)
      this.logger.warn({ project_id: projectId, conversions: skipped.length }, 'conversions naming unknown affiliates left out of the rebuild');
    return facts.filter((fact) => !skipped.includes(fact));
  }
}
