import { type Kysely, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { ClaimDatabase } from '../database';
import type { ClaimCheckStatus, ClaimReason } from '../domain/vocabulary';
import type { KnownCurrencies } from './known-currencies';
import { CURRENCY_COLUMNS, type CurrencyRow, type CurrencySummary, toCurrency } from './movement.repository';
import { reversedAmount } from './reversed-amount';

/** A claim check as the user sees it, with its currency and (once closed) its voucher's deadline. */
export interface ClaimCheckRecord {
  id: string;
  currency: CurrencySummary;
  reason: ClaimReason;
  amount: bigint;
  status: ClaimCheckStatus;
  /** Unix seconds; null while open. */
  deadline: bigint | null;
  createdAt: Date;
}

/** The signed struct of a closed check, exactly as it was signed. */
export interface StoredVoucher {
  claimCheckId: string;
  chainId: bigint;
  projectAddress: string;
  to: string;
  currency: string;
  currencyType: number;
  amount: bigint;
  reason: number;
  tokenId: bigint;
  deadline: bigint;
  proof: string;
  signatures: string[];
  /** The ClaimManager it was signed for (the EIP-712 domain's verifyingContract). */
  verifyingContract: string;
}

/** A check with its voucher, if it has one: what closing it, or listing it as claimable, answers. */
export interface CheckWithVoucher extends ClaimCheckRecord {
  voucher: StoredVoucher | null;
}

export interface CurrencyTotalRecord {
  currency: CurrencySummary;
  amount: bigint;
}

export interface ClaimHistoryRecord {
  transactionHash: string;
  claimedAt: Date;
  currency: CurrencySummary;
  amount: bigint;
}

/** Statuses a list shows when it is not filtered: an expired check's amount lives on in an open one. */
const LISTED_BY_DEFAULT: ClaimCheckStatus[] = ['open', 'closed', 'claimed'];

/** Reads of a user's claim checks and vouchers (the writes are VoucherRepository's). */
export class ClaimCheckRepository {
  constructor(
    private readonly db: Kysely<ClaimDatabase>,
    private readonly currencies: KnownCurrencies,
  ) {}

  /**
   * A page of the user's checks, newest first, and how many there are: one query on the checks alone
   * (the count rides along as a window over the same rows, a voucher's deadline as a lookup by its
   * key); only a page past the end asks for the count alone. Each check's currency comes from
   * `currencyOf`: currencies never change, and joining them made the statement cost twice as much to
   * plan as to run.
   */
  async list(
    projectId: string,
    user: UserIdentifier,
    status: ClaimCheckStatus | undefined,
    page: Page,
  ): Promise<{ records: ClaimCheckRecord[]; total: number }> {
    const statuses = status === undefined ? LISTED_BY_DEFAULT : [status];
    const rows = await this.db
      .selectFrom('claim_checks as cc')
      .select((eb) => [
        ...CHECK_COLUMNS,
        'cc.currency_id',
        eb.selectFrom('vouchers as v').select('v.deadline').whereRef('v.claim_check_id', '=', 'cc.id').as('deadline'),
        eb.fn.countAll<bigint>().over().as('total'),
      ])
      .where('cc.project_id', '=', projectId)
      .where('cc.identifier', '=', user.identifier)
      .where('cc.identifier_type', '=', user.identifierType)
      .where('cc.status', 'in', statuses)
      .orderBy('cc.created_at', 'desc')
      .orderBy('cc.id', 'desc')
      .limit(page.pageSize)
      .offset(page.offset)
      .execute();
    if (rows.length > 0 || page.offset === 0) {
      const currencies = await this.currencies.of(
        projectId,
        rows.map((row) => row.currency_id),
      );
      for (const row of rows)
        if (!currencies.has(row.currency_id)) throw new Error(`currency ${row.currency_id} of claim check ${row.id} does not exist`);
      const records = rows.map((row) => ({
        id: row.id,
        currency: currencies.get(row.currency_id)!,
        reason: row.reason,
        amount: row.amount,
        status: row.status,
        deadline: row.deadline,
        createdAt: row.created_at,
      }));
      return { records, total: Number(rows[0]?.total ?? 0) };
    }
    const count = await this.db
      .selectFrom('claim_checks')
      .select((eb) => eb.fn.countAll<bigint>().as('total'))
      .where('project_id', '=', projectId)
      .where('identifier', '=', user.identifier)
      .where('identifier_type', '=', user.identifierType)
      .where('status', 'in', statuses)
      .executeTakeFirstOrThrow();
    return { records: [], total: Number(count.total) };
  }

  /** The user's checks among `ids` (others' and unknown ids are simply not found), with their vouchers. */
  async withVouchers(projectId: string, user: UserIdentifier, ids: readonly string[]): Promise<CheckWithVoucher[]> {
    if (ids.length === 0) return [];
    const rows = await this.checksWithVouchers()
      .where('cc.project_id', '=', projectId)
      .where('cc.identifier', '=', user.identifier)
      .where('cc.identifier_type', '=', user.identifierType)
      .where('cc.id', 'in', ids)
      .execute();
    return rows.map(toCheckWithVoucher);
  }

  /** Closed vouchers not redeemed whose deadline is after `nowSeconds`, oldest first. */
  async claimable(projectId: string, user: UserIdentifier, nowSeconds: bigint): Promise<CheckWithVoucher[]> {
    const rows = await this.checksWithVouchers()
      .where('cc.project_id', '=', projectId)
      .where('cc.identifier', '=', user.identifier)
      .where('cc.identifier_type', '=', user.identifierType)
      .where('cc.status', '=', 'closed')
      .where('v.deadline', '>', nowSeconds)
      .orderBy('v.closed_at')
      .orderBy('cc.id')
      .execute();
    return rows.map(toCheckWithVoucher);
  }

  /**
   * Per currency: amounts redeemed (claimed), not yet (open or closed), and still pending (movements
   * held or waiting for a decision, in no check yet). The two reads run apart: a movement released
   * between them may show in neither or both, for that instant only.
   */
  async totals(
    projectId: string,
    user: UserIdentifier,
  ): Promise<{ claimed: CurrencyTotalRecord[]; unclaimed: CurrencyTotalRecord[]; pending: CurrencyTotalRecord[]; debt: CurrencyTotalRecord[] }> {
    // Pending amounts net of their reversals (a reversed pending movement becomes available net of them).
    const pendingRows = this.db
      .selectFrom('movements as m')
      .innerJoin('currencies as cur', 'cur.id', 'm.currency_id')
      .select([...CURRENCY_COLUMNS, sql<bigint>`sum(m.amount - ${reversedAmount('m')})`.as('amount')])
      .where('m.project_id', '=', projectId)
      .where('m.identifier', '=', user.identifier)
      .where('m.identifier_type', '=', user.identifierType)
      .where('m.status', '=', 'pending')
      .groupBy('cur.id')
      .orderBy('cur.chain_id')
      .orderBy('cur.address')
      .execute();
    const checkRows = this.db
      .selectFrom('claim_checks as cc')
      .innerJoin('currencies as cur', 'cur.id', 'cc.currency_id')
      .select((eb) => [
        ...CURRENCY_COLUMNS,
        eb.fn<boolean>('bool_or', [sql`cc.status = 'claimed'`]).as('claimed'),
        eb.fn.sum<bigint>('cc.amount').as('amount'),
      ])
      .where('cc.project_id', '=', projectId)
      .where('cc.identifier', '=', user.identifier)
      .where('cc.identifier_type', '=', user.identifierType)
      .where('cc.status', 'in', LISTED_BY_DEFAULT)
      .groupBy(['cur.id', sql`cc.status = 'claimed'`])
      .orderBy('cur.chain_id')
      .orderBy('cur.address')
      .execute();
    const debtRows = this.db
      .selectFrom('claim_checks as cc')
      .innerJoin('currencies as cur', 'cur.id', 'cc.currency_id')
      .select((eb) => [...CURRENCY_COLUMNS, eb.fn.sum<bigint>('cc.debt').as('amount')])
      .where('cc.project_id', '=', projectId)
      .where('cc.identifier', '=', user.identifier)
      .where('cc.identifier_type', '=', user.identifierType)
      .where('cc.status', '=', 'open')
      .where('cc.debt', '>', 0n)
      .groupBy('cur.id')
      .orderBy('cur.chain_id')
      .orderBy('cur.address')
      .execute();
    const [rows, pending, debt] = await Promise.all([checkRows, pendingRows, debtRows]);
    const total = (row: (typeof rows)[number]): CurrencyTotalRecord => ({ currency: toCurrency(row), amount: BigInt(row.amount) });
    return {
      claimed: rows.filter((row) => row.claimed).map(total),
      unclaimed: rows.filter((row) => !row.claimed).map(total),
      pending: pending.map((row) => ({ currency: toCurrency(row), amount: BigInt(row.amount) })),
      debt: debt.map((row) => ({ currency: toCurrency(row), amount: BigInt(row.amount) })),
    };
  }

  /** Redemptions, one row per (transaction, currency), newest first; ties by hash, then currency address. */
  async history(projectId: string, user: UserIdentifier, page: Page): Promise<{ records: ClaimHistoryRecord[]; total: number }> {
    const redeemed = this.db
      .selectFrom('claim_checks as cc')
      .innerJoin('vouchers as v', 'v.claim_check_id', 'cc.id')
      .innerJoin('currencies as cur', 'cur.id', 'cc.currency_id')
      .where('cc.project_id', '=', projectId)
      .where('cc.identifier', '=', user.identifier)
      .where('cc.identifier_type', '=', user.identifierType)
      .where('cc.status', '=', 'claimed')
      .where('v.claim_tx_hash', 'is not', null);
    const [rows, count] = await Promise.all([
      redeemed
        .select((eb) => [
          ...CURRENCY_COLUMNS,
          'v.claim_tx_hash as hash',
          eb.fn.max<Date>('v.claimed_at').as('claimed_at'),
          eb.fn.sum<bigint>('v.amount').as('amount'),
        ])
        .groupBy(['v.claim_tx_hash', 'cur.id'])
        .orderBy('claimed_at', 'desc')
        .orderBy('v.claim_tx_hash')
        .orderBy('cur.address')
        .orderBy('cur.chain_id')
        .limit(page.pageSize)
        .offset(page.offset)
        .execute(),
      this.db
        .selectFrom(redeemed.select(['v.claim_tx_hash', 'cur.id']).groupBy(['v.claim_tx_hash', 'cur.id']).as('groups'))
        .select((eb) => eb.fn.countAll<bigint>().as('total'))
        .executeTakeFirstOrThrow(),
    ]);
    return {
      records: rows.map((row) => ({ transactionHash: row.hash!, claimedAt: row.claimed_at, currency: toCurrency(row), amount: BigInt(row.amount) })),
      total: Number(count.total),
    };
  }

  private checks() {
    return this.db
      .selectFrom('claim_checks as cc')
      .innerJoin('currencies as cur', 'cur.id', 'cc.currency_id')
      .leftJoin('vouchers as v', 'v.claim_check_id', 'cc.id')
      .select([...CHECK_COLUMNS, ...CURRENCY_COLUMNS, 'v.deadline']);
  }

  private checksWithVouchers() {
    return this.checks().select([
      'v.chain_id as v_chain_id',
      'v.project_address',
      'v.to_address',
      'v.currency_address',
      'v.currency_type as v_currency_type',
      'v.amount as v_amount',
      'v.reason as v_reason',
      'v.proof',
      'v.signatures',
      'v.verifying_contract',
    ]);
  }
}

const CHECK_COLUMNS = ['cc.id', 'cc.reason', 'cc.amount', 'cc.status', 'cc.created_at'] as const;

type CheckRow = CurrencyRow & {
  id: string;
  reason: ClaimReason;
  amount: bigint;
  status: ClaimCheckStatus;
  created_at: Date;
  deadline: bigint | null;
};
type CheckWithVoucherRow = CheckRow & {
  v_chain_id: bigint | null;
  project_address: string | null;
  to_address: string | null;
  currency_address: string | null;
  v_currency_type: number | null;
  v_amount: bigint | null;
  v_reason: number | null;
  proof: string | null;
  signatures: string[] | null;
  verifying_contract: string | null;
};

function toCheck(row: CheckRow): ClaimCheckRecord {
  return {
    id: row.id,
    currency: toCurrency(row),
    reason: row.reason,
    amount: row.amount,
    status: row.status,
    deadline: row.deadline,
    createdAt: row.created_at,
  };
}

function toCheckWithVoucher(row: CheckWithVoucherRow): CheckWithVoucher {
  const signed = row.proof !== null && row.deadline !== null;
  return {
    ...toCheck(row),
    voucher: signed
      ? {
          claimCheckId: row.id,
          chainId: row.v_chain_id!,
          projectAddress: row.project_address!,
          to: row.to_address!,
          currency: row.currency_address!,
          currencyType: row.v_currency_type!,
          amount: row.v_amount!,
          reason: row.v_reason!,
          tokenId: 0n,
          deadline: row.deadline!,
          proof: row.proof!,
          signatures: row.signatures!,
          verifyingContract: row.verifying_contract!,
        }
      : null,
  };
}
