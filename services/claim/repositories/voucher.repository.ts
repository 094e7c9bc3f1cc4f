import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import { MAX_AMOUNT } from '../../rules/money';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { NewOutboxEvent } from '../../platform/outbox/event';
import type { ClaimCheckTable, ClaimDatabase } from '../database';
import type { ClaimReason } from '../domain/vocabulary';
import type { SignedVoucher } from '../domain/voucher';
import { retryTransient } from './retry';

/** An open check, locked for closing: its amount as of the lock (movements may have grown it since it was read). */
export interface LockedOpenCheck {
  id: string;
  currencyId: string;
  reason: ClaimReason;
  amount: bigint;
}

/**
 * A signed voucher (the ClaimCheck struct of contracts/generated/claim-manager.ts, with its
 * signatures), as stored for its check, with the chain and the EIP-712 domain it was signed for.
 */
export interface NewVoucher extends SignedVoucher {
  claimCheckId: string;
  chainId: bigint;
  verifyingContract: string;
  domainName: string;
  domainVersion: string;
}

/** One `Claimed` log of the ClaimManager, with the time of its block. */
export interface ClaimedEvent {
  proof: string;
  transactionHash: string;
  blockNumber: bigint;
  logIndex: number;
  blockTime: Date;
}

export interface AppliedClaims {
  /** False when another run moved the cursor first: nothing was written. */
  applied: boolean;
  /** Checks this call marked claimed. */
  claimed: number;
  /** Proofs of ours redeemed after their amount was credited back (a reorganisation deeper than the confirmations). */
  afterCredit: string[];
}

/** Where the watcher reads on from, on one chain. */
export interface ChainCursor {
  lastBlock: bigint;
  /** Set when this read started the cursor again because the chain's genesis changed: what it was before. */
  restarted?: { genesisHash: string; lastBlock: bigint };
}

/** A voucher past its deadline that nobody redeemed yet, as far as the watcher has read. */
export interface OutstandingVoucher {
  claimCheckId: string;
  proof: string;
  deadline: bigint;
}

/**
 * The writes of the claim-check half: closing checks into vouchers, applying the chain's Claimed
 * logs, and returning an expired voucher's amount to an open check. Each is one transaction that a
 * retry (or a concurrent twin) cannot make happen twice: checks move only out of `open` (close)
 * and only out of `closed` (claim, expiry), and the credit's key is the expired check.
 */
export class VoucherRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /**
   * Closes the user's checks among `ids` that are still open, signing each with `sign` while it is
   * locked (in the ledger's key order, so a payment touching the same checks cannot deadlock with
   * it): one voucher per check, ever. Checks another close got first are left as they are.
   * Returns how many this call closed.
   */
  async close(
    projectId: string,
    user: UserIdentifier,
    ids: readonly string[],
    now: Date,
    sign: (check: LockedOpenCheck) => Promise<NewVoucher>,
  ): Promise<number> {
    if (ids.length === 0) return 0;
    return retryTransient(() =>
      this.db.transaction().execute(async (trx) => {
        const locked = await trx
          .selectFrom('claim_checks')
          .select(['id', 'currency_id', 'reason', 'amount', 'status'])
          .where('project_id', '=', projectId)
          .where('identifier', '=', user.identifier)
          .where('identifier_type', '=', user.identifierType)
          .where('id', 'in', ids)
          .orderBy('currency_id')
          .orderBy('reason')
          .orderBy('id')
          .forUpdate()
          .execute();
        const open = locked.filter((check) => check.status === 'open');
        if (open.length === 0) return 0;
        const vouchers: NewVoucher[] = [];
        for (const check of open)
          vouchers.push(await sign({ id: check.id, currencyId: check.currency_id, reason: check.reason, amount: check.amount }));
        await trx
          .insertInto('vouchers')
          .values(
            vouchers.map((voucher) => ({
              claim_check_id: voucher.claimCheckId,
              project_id: projectId,
              chain_id: voucher.chainId,
              verifying_contract: voucher.verifyingContract,
              domain_name: voucher.domainName,
              domain_version: voucher.domainVersion,
              project_address: voucher.projectAddress,
              to_address: voucher.to,
              currency_address: voucher.currency,
              currency_type: voucher.currencyType,
              amount: voucher.amount,
              reason: voucher.reason,
              deadline: voucher.deadline,
              proof: voucher.proof,
              signatures: voucher.signatures,
              closed_at: now,
            })),
          )
          .execute();
        await trx
          .updateTable('claim_checks')
          .set({ status: 'closed', updated_at: now })
          .where(
            'id',
            'in',
            open.map((check) => check.id),
          )
          .where('status', '=', 'open')
          .execute();
        const reasonOf = new Map(open.map((check) => [check.id, check.reason]));
        await appendOutboxEvents(trx, now, [closedEvent(projectId, user, vouchers, reasonOf, now)]);
        return open.length;
      }),
    );
  }

  /**
   * How far the watcher has read a chain's logs of a contract: the last block applied. A chain read
   * for the first time starts at `initial` (the block before the first one to read). The cursor
   * belongs to the chain whose block 0 has the hash `genesis`: on a chain with another genesis (a
   * development chain restarted, a test network reset) it starts again at `initial`, once however
   * many runs race (compare-and-set on the genesis read), and says what it was.
   */
  async cursor(chainId: bigint, contract: string, genesis: string, initial: bigint, now: Date): Promise<ChainCursor> {
    await this.db
      .insertInto('chain_cursors')
      .values({ chain_id: chainId, contract, last_block: initial, genesis_hash: genesis, updated_at: now })
      .onConflict((conflict) => conflict.columns(['chain_id', 'contract']).doNothing())
      .execute();
    for (let attempt = 0; ; attempt += 1) {
      const row = await this.db
        .selectFrom('chain_cursors')
        .select(['last_block', 'genesis_hash'])
        .where('chain_id', '=', chainId)
        .where('contract', '=', contract)
        .executeTakeFirstOrThrow();
      if (row.genesis_hash === genesis || attempt === 3) return { lastBlock: row.last_block };
      const previous = row.genesis_hash;
      const moved = await this.db
        .updateTable('chain_cursors')
        // A cursor taken before genesis hashes were kept adopts the chain's as it is now.
        .set(previous === null ? { genesis_hash: genesis } : { genesis_hash: genesis, last_block: initial, updated_at: now })
        .where('chain_id', '=', chainId)
        .where('contract', '=', contract)
        .where((where) => (previous === null ? where('genesis_hash', 'is', null) : where('genesis_hash', '=', previous)))
        .executeTakeFirst();
      if (previous !== null && moved.numUpdatedRows === 1n)
        return { lastBlock: initial, restarted: { genesisHash: previous, lastBlock: row.last_block } };
      // Adopted, or another run moved it first: read it again.
    }
  }

  /**
   * Applies the Claimed logs of blocks (from, to] and moves the cursor to `to`, in one transaction,
   * only if the cursor still stands at `from` on the chain of `genesis` (a run that lost the race writes nothing). A voucher
   * is marked claimed once, with the transaction that redeemed it; its check moves from closed to claimed.
   */
  async applyClaims(
    chainId: bigint,
    contract: string,
    genesis: string,
    from: bigint,
    to: bigint,
    events: readonly ClaimedEvent[],
    now: Date,
  ): Promise<AppliedClaims> {
    return retryTransient(() =>
      this.db.transaction().execute(async (trx) => {
        const cursor = await trx
          .selectFrom('chain_cursors')
          .select(['last_block', 'genesis_hash'])
          .where('chain_id', '=', chainId)
          .where('contract', '=', contract)
          .forUpdate()
          .executeTakeFirst();
        // Logs read from another chain than the cursor's now (it was reset meanwhile) are not applied either.
        if (cursor?.last_block !== from || cursor.genesis_hash !== genesis) return { applied: false, claimed: 0, afterCredit: [] };
        const outcome = events.length === 0 ? { claimed: 0, afterCredit: [] } : await markClaimed(trx, chainId, events, now);
        await trx
          .updateTable('chain_cursors')
          .set({ last_block: to, updated_at: now })
          .where('chain_id', '=', chainId)
          .where('contract', '=', contract)
          .execute();
        return { applied: true, ...outcome };
      }),
    );
  }

  /** Vouchers of the chain's contract neither redeemed nor expired whose deadline is before `before` (unix s), earliest first. */
  async outstandingBefore(chainId: bigint, contract: string, before: bigint, limit: number): Promise<OutstandingVoucher[]> {
    const rows = await this.db
      .selectFrom('vouchers')
      .select(['claim_check_id', 'proof', 'deadline'])
      .where('chain_id', '=', chainId)
      .where('verifying_contract', '=', contract)
      .where('claimed_at', 'is', null)
      .where('expired_at', 'is', null)
      .where('deadline', '<', before)
      .orderBy('deadline')
      .orderBy('claim_check_id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ claimCheckId: row.claim_check_id, proof: row.proof, deadline: row.deadline }));
  }

  /**
   * The voucher expired unredeemed (the chain says so at a final block past its deadline): its
   * check becomes expired and its amount goes to the open check of the same (user, currency,
   * reason) that takes movements, created if none is open; when the amount would take that check
   * past 2^256 − 1, the check becomes full and a new open check takes the amount. Once: a check
   * that is no longer closed is left alone.
   * Returns the open check credited, or undefined when there was nothing to do.
   */
  async expire(claimCheckId: string, now: Date): Promise<{ openCheckId: string; amount: bigint } | undefined> {
    return retryTransient(() =>
      this.db.transaction().execute(async (trx) => {
        const expired = await trx
          .updateTable('claim_checks')
          .set({ status: 'expired', updated_at: now })
          .where('id', '=', claimCheckId)
          .where('status', '=', 'closed')
          .returning(['project_id', 'identifier_type', 'identifier', 'currency_id', 'reason', 'amount'])
          .executeTakeFirst();
        if (!expired) return undefined;
        const openCheckId = await creditOpenCheck(trx, expired, now);
        await trx
          .insertInto('claim_check_credits')
          .values({
            expired_check_id: claimCheckId,
            project_id: expired.project_id,
            open_check_id: openCheckId,
            amount: expired.amount,
            created_at: now,
          })
          .execute();
        await trx.updateTable('vouchers').set({ expired_at: now }).where('claim_check_id', '=', claimCheckId).execute();
        return { openCheckId, amount: expired.amount };
      }),
    );
  }

  /**
   * A voucher the chain shows redeemed though no log of it was read (it was redeemed before the
   * watcher's first block): claimed as of `claimedAt`, transaction unknown.
   */
  async claimedUnseen(claimCheckId: string, claimedAt: Date, now: Date): Promise<boolean> {
    return retryTransient(() =>
      this.db.transaction().execute(async (trx) => {
        const check = await trx
          .updateTable('claim_checks')
          .set({ status: 'claimed', updated_at: now })
          .where('id', '=', claimCheckId)
          .where('status', '=', 'closed')
          .returning('id')
          .executeTakeFirst();
        if (!check) return false;
        await trx
          .updateTable('vouchers')
          .set({ claimed_at: claimedAt })
          .where('claim_check_id', '=', claimCheckId)
          .where('claimed_at', 'is', null)
          .execute();
        await appendOutboxEvents(trx, now, await claimedEvents(trx, [claimCheckId]));
        return true;
      }),
    );
  }
}

/**
 * Adds an expired check's amount to the open check of its (user, currency, reason) that takes
 * movements, or to a new one (paying the user's debt carried on it first); answers the check credited. The amount was a signed voucher's, so at
 * most 2^256 − 1: when adding it to the open check would pass that, the open check (locked by the
 * conflict, though not updated) becomes full and a new open check holds the amount alone.
 */
async function creditOpenCheck(
  trx: Transaction<ClaimDatabase>,
  expired: Pick<Selectable<ClaimCheckTable>, 'project_id' | 'identifier_type' | 'identifier' | 'currency_id' | 'reason' | 'amount'>,
  now: Date,
): Promise<string> {
  const max = MAX_AMOUNT.toString();
  const insert = () => sql<{ id: string }>`
    INSERT INTO claim_checks AS cc (project_id, identifier_type, identifier, currency_id, reason, status, amount, movements_count, created_at, updated_at)
    VALUES (${expired.project_id}, ${expired.identifier_type}, ${expired.identifier}, ${expired.currency_id}, ${expired.reason}, 'open', ${expired.amount}, 0, ${now}, ${now})
    ON CONFLICT (project_id, identifier, identifier_type, currency_id, reason) WHERE status = 'open' AND full_at IS NULL
    DO UPDATE SET amount = cc.amount + excluded.amount - least(cc.debt, excluded.amount), debt = cc.debt - least(cc.debt, excluded.amount),
                  updated_at = excluded.updated_at
    WHERE cc.amount + excluded.amount <= ${max}::numeric
    RETURNING id`;
  // Raw: the conflict target is the partial unique index of the open check that takes movements (as the ledger writes it).
  const credited = (await insert().execute(trx)).rows[0];
  if (credited) return credited.id;
  await trx
    .updateTable('claim_checks')
    .set({ full_at: now, updated_at: now })
    .where('project_id', '=', expired.project_id)
    .where('identifier', '=', expired.identifier)
    .where('identifier_type', '=', expired.identifier_type)
    .where('currency_id', '=', expired.currency_id)
    .where('reason', '=', expired.reason)
    .where('status', '=', 'open')
    .where('full_at', 'is', null)
    .execute();
  const opened = (await insert().execute(trx)).rows[0];
  if (!opened) throw new Error('no open check took the credit of an expired check');
  return opened.id;
}

/** Checks first, then their vouchers (the order expiry takes them in): closed -> claimed, with the redeeming transaction. */
async function markClaimed(
  trx: Transaction<ClaimDatabase>,
  chainId: bigint,
  events: readonly ClaimedEvent[],
  now: Date,
): Promise<Omit<AppliedClaims, 'applied'>> {
  const column = <T>(pick: (event: ClaimedEvent) => T) => events.map(pick);
  const { rows: checks } = await sql<{ id: string; status: string; proof: string }>`
    SELECT cc.id, cc.status, v.proof
    FROM vouchers v JOIN claim_checks cc ON cc.id = v.claim_check_id
    WHERE v.chain_id = ${chainId} AND v.proof = ANY(${column((e) => e.proof)}::text[]) AND v.claimed_at IS NULL
    ORDER BY cc.id
    FOR UPDATE OF cc`.execute(trx);
  if (checks.length === 0) return { claimed: 0, afterCredit: [] };
  const closed = checks.filter((check) => check.status === 'closed').map((check) => check.id);
  if (closed.length > 0) await trx.updateTable('claim_checks').set({ status: 'claimed', updated_at: now }).where('id', 'in', closed).execute();
  await sql`
    UPDATE vouchers AS v SET claimed_at = e.block_time, claim_tx_hash = e.tx_hash, claim_block_number = e.block_number, claim_log_index = e.log_index
    FROM unnest(
      ${column((e) => e.proof)}::text[], ${column((e) => e.transactionHash)}::text[], ${column((e) => e.blockNumber.toString())}::bigint[],
      ${column((e) => e.logIndex)}::integer[], ${column((e) => e.blockTime)}::timestamptz[]
    ) AS e(proof, tx_hash, block_number, log_index, block_time)
    WHERE v.chain_id = ${chainId} AND v.proof = e.proof AND v.claimed_at IS NULL`.execute(trx);
  await appendOutboxEvents(trx, now, await claimedEvents(trx, closed));
  return { claimed: closed.length, afterCredit: checks.filter((check) => check.status === 'expired').map((check) => check.proof) };
}

/** claim.claim_check.closed: what the close signed, for whom, until when. Never the signatures. */
function closedEvent(
  projectId: string,
  user: UserIdentifier,
  vouchers: readonly NewVoucher[],
  reasonOf: ReadonlyMap<string, ClaimReason>,
  now: Date,
): NewOutboxEvent {
  return {
    type: 'claim.claim_check.closed',
    projectId,
    payload: {
      user: { identifier: user.identifier, identifier_type: user.identifierType },
      closed_at: now.toISOString(),
      claim_checks: vouchers.map((voucher) => ({
        claim_check_id: voucher.claimCheckId,
        reason: reasonOf.get(voucher.claimCheckId)!,
        amount: voucher.amount.toString(),
        currency_address: voucher.currency,
        currency_chain_id: voucher.chainId.toString(),
        deadline: voucher.deadline.toString(),
      })),
    },
  };
}

/** claim.claim_check.claimed for each of these checks just marked claimed, read back with their vouchers in this transaction. */
async function claimedEvents(trx: Transaction<ClaimDatabase>, checkIds: readonly string[]): Promise<NewOutboxEvent[]> {
  if (checkIds.length === 0) return [];
  const rows = await trx
    .selectFrom('claim_checks as cc')
    .innerJoin('vouchers as v', 'v.claim_check_id', 'cc.id')
    .select([
      'cc.id',
      'cc.project_id',
      'cc.identifier',
      'cc.identifier_type',
      'cc.reason',
      'v.amount',
      'v.currency_address',
      'v.chain_id',
      'v.claim_tx_hash',
      'v.claim_block_number',
      'v.claimed_at',
    ])
    .where('cc.id', 'in', checkIds)
    .orderBy('cc.id')
    .execute();
  return rows.map((row) => ({
    type: 'claim.claim_check.claimed',
    projectId: row.project_id,
    payload: {
      claim_check_id: row.id,
      user: { identifier: row.identifier, identifier_type: row.identifier_type },
      reason: row.reason,
      amount: row.amount.toString(),
      currency_address: row.currency_address,
      currency_chain_id: row.chain_id.toString(),
      transaction_hash: row.claim_tx_hash,
      block_number: row.claim_block_number === null ? null : row.claim_block_number.toString(),
      claimed_at: row.claimed_at!.toISOString(),
    },
  }));
}
