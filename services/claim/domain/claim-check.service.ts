import type { Clock } from '../../platform/clock';
import { ConflictError, FailedPreconditionError, type FieldViolation, invalidFields, NotFoundError } from '../../rules/errors';
import { normalizeIdentifier, type UserIdentifier } from '../../rules/identifiers';
import { canonicalUuid, isUuid } from '../../rules/ids';
import type { Logger } from '../../platform/logger';
import type { OutboxWaker } from '../../platform/outbox/relay';
import type { Page } from '../../rules/pagination';
import type {
  CheckWithVoucher,
  ClaimCheckRecord,
  ClaimCheckRepository,
  ClaimHistoryRecord,
  CurrencyTotalRecord,
  StoredVoucher,
} from '../repositories/claim-check.repository';
import type { ClaimSettingsRepository } from '../repositories/claim-settings.repository';
import type { CurrencySummary } from '../repositories/movement.repository';
import type { NewVoucher, VoucherRepository } from '../repositories/voucher.repository';
import type { ChainDirectory } from './chains';
import { requireProjectId } from './project';
import { isGated, type TaxGate } from './tax-gate';
import type { ClaimCheckStatus, ClaimReason, CurrencyType } from './vocabulary';
import {
  type ClaimCheckVoucher,
  ClaimReason as ClaimReasonCode,
  CurrencyType as CurrencyTypeCode,
  type Hex,
  newProof,
  type SignedVoucher,
  UnsignableVoucherError,
  type VoucherDomain,
  voucherDeadline,
} from './voucher';

/** Signs vouchers with the configured keys (chain/voucher-signer.ts). */
export interface VoucherSigning {
  sign(domain: VoucherDomain, voucher: ClaimCheckVoucher): Promise<SignedVoucher>;
}

/** At most this many checks are closed by one request. */
export const MAX_CLOSE_IDS = 100;

/** The voucher's reason code (IFuulManager.ClaimReason) of each reason. */
export const REASON_CODE: Record<ClaimReason, number> = {
  affiliate: ClaimReasonCode.affiliate,
  end_user: ClaimReasonCode.endUser,
  agency: ClaimReasonCode.agency,
};

/** The voucher's currency type (IFuulProject.TokenType) of each currency type. */
export const CURRENCY_TYPE_CODE: Record<ChainCurrencyType, number> = { native: CurrencyTypeCode.native, erc20: CurrencyTypeCode.erc20 };

type ChainCurrencyType = Exclude<CurrencyType, 'point'>;
/** A currency a voucher can pay: on a chain, at an address. */
type ChainCurrency = CurrencySummary & { chainId: bigint; address: string; type: ChainCurrencyType };

/**
 * The check's currency, which a voucher pays: points are never in a claim check (docs/claims.md#points),
 * so this refuses what the ledger never writes rather than sign a voucher of no chain.
 */
function onChain(currency: CurrencySummary): ChainCurrency {
  if (currency.chainId === null || currency.address === null || currency.type === 'point') {
    throw new FailedPreconditionError(
      'POINTS_NOT_CLAIMABLE',
      'points are credited to a points balance, never claimed with a voucher: nothing was closed',
    );
  }
  return currency as ChainCurrency;
}

/** A check as listed: restricted checks carry the tax gate's message and show no deadline. */
export interface ClaimCheckView extends ClaimCheckRecord {
  restriction: string | null;
  /** On an open check that closing would refuse for the program's set-up: the code the close would answer. */
  closeUnavailable: CloseUnavailable | null;
}

/** Why the program's set-up keeps an open check from closing (the codes close() refuses with). */
export type CloseUnavailable = 'CHAIN_NOT_CONFIGURED' | 'CLAIM_SETTINGS_MISSING';

/**
 * One row of /close and /claim: the voucher's struct. `signed` is what makes it redeemable; a
 * restricted row has none, and says why in `restriction`.
 */
export interface ClaimRow extends Omit<StoredVoucher, 'deadline' | 'proof' | 'signatures' | 'verifyingContract'> {
  signed: { deadline: bigint; proof: string; signatures: string[] } | null;
  restriction: string | null;
  /** The contract the voucher was signed for (its verifyingContract); null when no voucher was signed. */
  claimManager: string | null;
}

export interface VoucherIssuing {
  signer: VoucherSigning;
  chains: ChainDirectory;
  ttlSeconds: number;
}

/**
 * A user's claim checks (specification §4.4): listing them, closing them into signed vouchers (one
 * per check, ever), the vouchers still to redeem, totals and redemption history, all behind the
 * tax gate (§8.1).
 */
export class ClaimCheckService {
  constructor(
    private readonly checks: ClaimCheckRepository,
    private readonly vouchers: VoucherRepository,
    private readonly settings: ClaimSettingsRepository,
    private readonly gate: TaxGate,
    private readonly issuing: VoucherIssuing,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Woken after a close committed its claim_check.closed event. */
    private readonly outbox: OutboxWaker,
  ) {}

  async list(projectId: string, user: { identifier: string; identifierType: string }, status: ClaimCheckStatus | undefined, page: Page) {
    requireProjectId(projectId);
    const owner = normalizeIdentifier(user.identifier, user.identifierType, 'user');
    const { records, total } = await this.checks.list(projectId, owner, status, page);
    const restriction = await this.gate.restriction(
      projectId,
      owner,
      records.map((record) => record.reason),
    );
    const closeUnavailable = await this.closeUnavailability(projectId, records);
    const views: ClaimCheckView[] = records.map((record) => ({
      ...record,
      restriction: isGated(record.reason) ? restriction : null,
      closeUnavailable: closeUnavailable(record),
    }));
    return { records: views, total };
  }

  /**
   * What close() would refuse an open check with for the program's set-up (no project address, no
   * ClaimManager on its chain), so a client offers no close it would refuse and says why in its own
   * words. The user's own hindrances (the tax gate, an empty check) are not set-up: they are said elsewhere.
   */
  private async closeUnavailability(projectId: string, records: ClaimCheckRecord[]): Promise<(record: ClaimCheckRecord) => CloseUnavailable | null> {
    if (!records.some((record) => record.status === 'open')) return () => null;
    const settings = await this.settings.get(projectId);
    return (record) => {
      if (record.status !== 'open') return null;
      if (!settings) return 'CLAIM_SETTINGS_MISSING';
      // A point currency has no chain, and no check of it is ever closed (points go to a balance).
      const { chainId } = record.currency;
      return chainId === null || this.issuing.chains.chain(chainId) ? null : 'CHAIN_NOT_CONFIGURED';
    };
  }

  /**
   * Signs a voucher for each of the user's open checks among `ids` (1 to 100): deadline = now +
   * CLAIM_VOUCHER_TTL_SECONDS, a fresh random proof, one signature per configured key. A check
   * closed before answers the voucher it was closed with; a restricted check is not signed and
   * answers a restricted row. Refused whole (nothing closed) when an id names no check of the user
   * (404) or an expired one (409), when a check cannot be signed as it stands (409
   * CLAIM_CHECK_UNSIGNABLE), when one holds nothing after reversals (409 CLAIM_CHECK_NOT_POSITIVE), or when the project or chain is not set up for claims.
   */
  async close(projectId: string, user: { identifier: string; identifierType: string }, ids: readonly string[]): Promise<ClaimRow[]> {
    requireProjectId(projectId);
    const owner = normalizeIdentifier(user.identifier, user.identifierType, 'user');
    if (ids.length === 0 || ids.length > MAX_CLOSE_IDS) {
      throw invalidFields([{ field: 'claim_check_ids', reason: `must list 1 to ${MAX_CLOSE_IDS} claim check ids` }]);
    }
    const wanted = [...new Set(ids.map(canonicalUuid))];
    const found = new Map((await this.checks.withVouchers(projectId, owner, wanted.filter(isUuid))).map((check) => [check.id, check]));
    this.refuseMissingOrExpired(ids, found);

    const restriction = await this.gate.restriction(
      projectId,
      owner,
      [...found.values()].map((check) => check.reason),
    );
    const restricted = (check: ClaimCheckRecord) => restriction !== null && isGated(check.reason);
    const open = [...found.values()].filter((check) => check.status === 'open');
    const settings = open.length === 0 ? undefined : await this.settings.get(projectId);
    if (open.length > 0 && !settings) {
      throw new FailedPreconditionError(
        'CLAIM_SETTINGS_MISSING',
        'the project has no on-chain project address yet: an admin sets it with PUT /api/v1/projects/{projectId}/claim-settings before checks can be closed',
      );
    }
    const toSign = open.filter((check) => !restricted(check));
    if (toSign.length > 0) {
      const fieldOf = (id: string) => `claim_check_ids[${ids.findIndex((given) => canonicalUuid(given) === id)}]`;
      await this.sign(projectId, owner, toSign, settings!.projectAddress, fieldOf);
      for (const check of await this.checks.withVouchers(
        projectId,
        owner,
        toSign.map((check) => check.id),
      ))
        found.set(check.id, check);
    }
    return wanted.map((id) => {
      const check = found.get(id)!;
      return check.voucher
        ? rowOfVoucher(check.voucher, restricted(check) ? restriction : null)
        : restrictedOpenRow(check, owner, settings!.projectAddress, restriction!);
    });
  }

  /** The user's closed vouchers not redeemed and not past their deadline, oldest first. */
  async claimable(projectId: string, user: { identifier: string; identifierType: string }): Promise<ClaimRow[]> {
    requireProjectId(projectId);
    const owner = normalizeIdentifier(user.identifier, user.identifierType, 'user');
    const nowSeconds = BigInt(Math.floor(this.clock.now().getTime() / 1000));
    const checks = await this.checks.claimable(projectId, owner, nowSeconds);
    const restriction = await this.gate.restriction(
      projectId,
      owner,
      checks.map((check) => check.reason),
    );
    return checks.map((check) => rowOfVoucher(check.voucher!, isGated(check.reason) ? restriction : null));
  }

  async totals(
    projectId: string,
    user: { identifier: string; identifierType: string },
  ): Promise<{ claimed: CurrencyTotalRecord[]; unclaimed: CurrencyTotalRecord[]; pending: CurrencyTotalRecord[]; debt: CurrencyTotalRecord[] }> {
    requireProjectId(projectId);
    return this.checks.totals(projectId, normalizeIdentifier(user.identifier, user.identifierType, 'user'));
  }

  async history(
    projectId: string,
    user: { identifier: string; identifierType: string },
    page: Page,
  ): Promise<{ records: ClaimHistoryRecord[]; total: number }> {
    requireProjectId(projectId);
    return this.checks.history(projectId, normalizeIdentifier(user.identifier, user.identifierType, 'user'), page);
  }

  private refuseMissingOrExpired(ids: readonly string[], found: ReadonlyMap<string, CheckWithVoucher>): void {
    const missing: FieldViolation[] = [];
    const expired: FieldViolation[] = [];
    ids.forEach((id, index) => {
      const check = found.get(canonicalUuid(id));
      if (!check) missing.push({ field: `claim_check_ids[${index}]`, reason: 'no claim check of this user has this id' });
      else if (check.status === 'expired') expired.push({ field: `claim_check_ids[${index}]`, reason: 'its voucher expired unredeemed' });
    });
    if (missing.length > 0) {
      throw new NotFoundError(
        'CLAIM_CHECK_NOT_FOUND',
        `${missing.length} of the ids name no claim check of this user in this project; nothing was closed`,
        missing,
      );
    }
    if (expired.length > 0) {
      throw new ConflictError(
        'CLAIM_CHECK_EXPIRED',
        'a voucher of these checks expired unredeemed and its amount went back to an open check of the same currency and reason: close that one instead; nothing was closed',
        expired,
      );
    }
  }

  private async sign(
    projectId: string,
    owner: UserIdentifier,
    checks: CheckWithVoucher[],
    projectAddress: string,
    fieldOf: (id: string) => string,
  ): Promise<void> {
    if (owner.identifierType !== 'evm_address') {
      throw new FailedPreconditionError('CLAIM_NEEDS_EVM_ADDRESS', `vouchers pay an EVM address; this user is identified by ${owner.identifierType}`);
    }
    const chainOf = new Map<string, { domain: VoucherDomain; chainId: bigint }>();
    for (const check of checks) {
      const currency = onChain(check.currency);
      const chain = this.issuing.chains.chain(currency.chainId);
      if (!chain) {
        throw new FailedPreconditionError(
          'CHAIN_NOT_CONFIGURED',
          `claims on chain ${currency.chainId} are not configured (CLAIM_MANAGER_ADDRESSES and CHAIN_RPC_URLS of the claim service): nothing was closed`,
        );
      }
      chainOf.set(check.id, { domain: this.issuing.chains.domainOf(chain), chainId: currency.chainId });
    }
    const byId = new Map(checks.map((check) => [check.id, check]));
    const now = this.clock.now();
    const deadline = voucherDeadline(now, this.issuing.ttlSeconds);
    const closed = await this.vouchers.close(projectId, owner, [...byId.keys()], now, async (locked): Promise<NewVoucher> => {
      // Read under the lock: a reversal that committed since the check was listed may have taken what it held.
      if (locked.amount <= 0n) throw notPositive(fieldOf(locked.id));
      const currency = onChain(byId.get(locked.id)!.currency);
      const { domain, chainId } = chainOf.get(locked.id)!;
      const voucher = await this.issuing.signer
        .sign(domain, {
          projectAddress: projectAddress as Hex,
          to: owner.identifier as Hex,
          currency: currency.address as Hex,
          currencyType: CURRENCY_TYPE_CODE[currency.type] as ClaimCheckVoucher['currencyType'],
          amount: locked.amount,
          reason: REASON_CODE[locked.reason] as ClaimCheckVoucher['reason'],
          tokenId: 0n,
          deadline,
          proof: newProof(),
        })
        .catch((error: unknown) => {
          if (error instanceof UnsignableVoucherError) throw unsignable(fieldOf(locked.id), error.problems);
          throw error;
        });
      return {
        ...voucher,
        claimCheckId: locked.id,
        chainId,
        verifyingContract: domain.verifyingContract,
        domainName: domain.name,
        domainVersion: domain.version,
      };
    });
    if (closed > 0) {
      this.outbox.wake();
      this.logger.info({ project_id: projectId, closed, deadline: deadline.toString() }, 'claim checks closed into vouchers');
    }
  }
}

/**
 * A check no voucher can be signed for as it stands (voucherProblems: an amount past 2^256 − 1 held
 * since before amounts were bounded, a recipient the contract refuses, ...): the whole close is
 * refused, nothing closed, with the problems named.
 */
function unsignable(field: string, problems: string[]): ConflictError {
  return new ConflictError(
    'CLAIM_CHECK_UNSIGNABLE',
    `a claim check cannot be signed as a voucher the ClaimManager would pay (${problems.join('; ')}); nothing was closed`,
    problems.map((reason) => ({ field, reason })),
  );
}

/**
 * A check whose net is not positive: reversals took back what it held (and any debt they left is
 * carried on it, paid first out of what the user earns next). No voucher pays nothing; nothing is closed.
 */
function notPositive(field: string): ConflictError {
  return new ConflictError(
    'CLAIM_CHECK_NOT_POSITIVE',
    'a claim check holds nothing to pay: reversals took back what it held, and any debt left is paid first out of what the user earns next; nothing was closed',
    [{ field, reason: 'its net amount is 0: nothing to claim until new earnings pay the debt' }],
  );
}

function rowOfVoucher(voucher: StoredVoucher, restriction: string | null): ClaimRow {
  return {
    claimCheckId: voucher.claimCheckId,
    chainId: voucher.chainId,
    projectAddress: voucher.projectAddress,
    to: voucher.to,
    currency: voucher.currency,
    currencyType: voucher.currencyType,
    amount: voucher.amount,
    reason: voucher.reason,
    tokenId: voucher.tokenId,
    signed: restriction === null ? { deadline: voucher.deadline, proof: voucher.proof, signatures: voucher.signatures } : null,
    restriction,
    claimManager: restriction === null ? voucher.verifyingContract : null,
  };
}

/** An open check the gate withholds: what its voucher would pay, unsigned. */
function restrictedOpenRow(check: ClaimCheckRecord, owner: UserIdentifier, projectAddress: string, restriction: string): ClaimRow {
  const currency = onChain(check.currency);
  return {
    claimCheckId: check.id,
    chainId: currency.chainId,
    projectAddress,
    to: owner.identifier,
    currency: currency.address,
    currencyType: CURRENCY_TYPE_CODE[currency.type],
    amount: check.amount,
    reason: REASON_CODE[check.reason],
    tokenId: 0n,
    signed: null,
    restriction,
    claimManager: null,
  };
}
