import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import type { OutboxWaker } from '../../platform/outbox/relay';
import type { ClaimedEvent, VoucherRepository } from '../repositories/voucher.repository';
import type { ChainDirectory, ChainSettings } from './chains';

/** One `Claimed` log as the chain gives it (its block's time is asked separately). */
export interface ClaimedLog {
  /** Lowercase 0x + 64 hex. */
  proof: string;
  transactionHash: string;
  blockNumber: bigint;
  logIndex: number;
}

/** What the watcher reads of a chain: the ClaimManager's logs and state (chain/claim-manager-reader.ts, over viem). */
export interface ClaimManagerReader {
  latestBlock(): Promise<bigint>;
  /** The hash of block 0 (lowercase 0x + 64 hex): which chain this is, beyond its id. */
  genesisHash(): Promise<string>;
  /** Unix seconds. */
  blockTime(blockNumber: bigint): Promise<bigint>;
  /** The contract's Claimed logs of blocks from..to (inclusive), in chain order. */
  claimedLogs(fromBlock: bigint, toBlock: bigint): Promise<ClaimedLog[]>;
  /** `claimedProofs(proof)` of each, as of `atBlock`. */
  claimedProofs(proofs: readonly string[], atBlock: bigint): Promise<boolean[]>;
}

export type ClaimManagerReaderFactory = (chain: ChainSettings) => Promise<ClaimManagerReader>;

export interface WatcherOptions {
  /** Blocks per eth_getLogs request (CHAIN_LOG_BLOCK_RANGE). */
  blockRange: number;
  /** Ranges one run reads at most; the next run goes on from there. */
  maxRangesPerRun: number;
  /** Expired vouchers one run looks at at most. */
  expiryBatch: number;
}

export interface WatchOutcome {
  chainId: number;
  /** The last block whose logs are applied (-1: none yet). */
  lastBlock: string;
  claimed: number;
  credited: number;
}

/**
 * Follows one chain's ClaimManager, after `confirmations` blocks, from the last block it applied
 * (on that chain: a new genesis block starts the cursor again, see VoucherRepository.cursor):
 * - each Claimed log marks its voucher claimed, with the transaction (and the block's time);
 * - a voucher whose deadline is before the time of the last final block, and whose proof the chain
 *   says is not redeemed at that block, can never be redeemed (block times only grow): its amount
 *   goes back to an open check, once.
 * Safe to run twice at once and after a crash: logs and the cursor move together in one
 * transaction that only the run that read from the cursor can commit, and every check changes
 * state at most once (VoucherRepository).
 */
export class ChainWatcherService {
  private readonly readers = new Map<number, Promise<ClaimManagerReader>>();

  constructor(
    private readonly vouchers: VoucherRepository,
    private readonly chains: ChainDirectory,
    private readonly readerOf: ClaimManagerReaderFactory,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: WatcherOptions,
    /** Woken after claims were applied (their claim_check.claimed events are committed). */
    private readonly outbox: OutboxWaker,
  ) {}

  async run(chainId: number): Promise<WatchOutcome> {
    const chain = this.chains.chain(chainId);
    if (!chain) {
      // A schedule left from a configuration that no longer lists the chain: nothing to follow.
      this.logger.warn({ chain_id: chainId }, 'no ClaimManager is configured for this chain; its watch does nothing');
      return { chainId, lastBlock: '-1', claimed: 0, credited: 0 };
    }
    const reader = await this.reader(chain);
    const id = BigInt(chainId);
    const contract = chain.claimManager;
    const [latest, genesis] = await Promise.all([reader.latestBlock(), reader.genesisHash()]);
    const safe = latest - BigInt(chain.confirmations);
    const initial = chain.startBlock !== undefined ? chain.startBlock - 1n : safe;
    const read = await this.vouchers.cursor(id, contract, genesis, initial < -1n ? -1n : initial, this.clock.now());
    if (read.restarted) {
      this.logger.warn(
        {
          chain_id: chainId,
          claim_manager: contract,
          genesis_hash: genesis,
          previous_genesis_hash: read.restarted.genesisHash,
          previous_last_block: read.restarted.lastBlock.toString(),
          last_block: read.lastBlock.toString(),
        },
        'the chain has a new genesis block (it was reset or replaced, as a development chain is on every restart): reading it again from its start block, as a chain never read',
      );
    }
    let cursor = read.lastBlock;
    let claimed = 0;

    for (let ranges = 0; cursor < safe && ranges < this.options.maxRangesPerRun; ranges += 1) {
      const to = cursor + BigInt(this.options.blockRange) > safe ? safe : cursor + BigInt(this.options.blockRange);
      const events = await this.withBlockTimes(reader, await reader.claimedLogs(cursor + 1n, to));
      const result = await this.vouchers.applyClaims(id, contract, genesis, cursor, to, events, this.clock.now());
      if (!result.applied) return { chainId, lastBlock: cursor.toString(), claimed, credited: 0 };
      if (result.afterCredit.length > 0) {
        this.logger.error(
          { chain_id: chainId, proofs: result.afterCredit },
          'vouchers were redeemed on chain after their amount was credited back to an open check: the chain reorganised deeper than CHAIN_CONFIRMATIONS',
        );
      }
      claimed += result.claimed;
      cursor = to;
    }

    // Expiry needs every log up to the final block applied: a voucher redeemed there is claimed by now.
    const credited = cursor >= safe && safe >= 0n ? await this.expire(reader, chain, safe) : 0;
    if (claimed > 0) this.outbox.wake();
    if (claimed > 0 || credited > 0) this.logger.info({ chain_id: chainId, last_block: cursor.toString(), claimed, credited }, 'chain watched');
    return { chainId, lastBlock: cursor.toString(), claimed, credited };
  }

  private async expire(reader: ClaimManagerReader, chain: ChainSettings, safe: bigint): Promise<number> {
    const safeTime = await reader.blockTime(safe);
    const due = await this.vouchers.outstandingBefore(BigInt(chain.chainId), chain.claimManager, safeTime, this.options.expiryBatch);
    if (due.length === 0) return 0;
    const redeemed = await reader.claimedProofs(
      due.map((voucher) => voucher.proof),
      safe,
    );
    let credited = 0;
    for (const [index, voucher] of due.entries()) {
      const now = this.clock.now();
      if (redeemed[index]) {
        // Redeemed before the first block this watcher read: claimed, its transaction unknown.
        if (await this.vouchers.claimedUnseen(voucher.claimCheckId, new Date(Number(safeTime) * 1000), now)) {
          this.outbox.wake();
          this.logger.warn(
            { chain_id: chain.chainId, claim_check_id: voucher.claimCheckId },
            'voucher redeemed before the first block watched (CHAIN_START_BLOCKS): claimed without its transaction',
          );
        }
      } else if (await this.vouchers.expire(voucher.claimCheckId, now)) {
        credited += 1;
      }
    }
    return credited;
  }

  private async withBlockTimes(reader: ClaimManagerReader, logs: ClaimedLog[]): Promise<ClaimedEvent[]> {
    const blocks = [...new Set(logs.map((log) => log.blockNumber))];
    const times = new Map(await Promise.all(blocks.map(async (block) => [block, await reader.blockTime(block)] as const)));
    return logs.map((log) => ({ ...log, blockTime: new Date(Number(times.get(log.blockNumber)!) * 1000) }));
  }

  private reader(chain: ChainSettings): Promise<ClaimManagerReader> {
    let reader = this.readers.get(chain.chainId);
    if (!reader) {
      reader = this.readerOf(chain);
      // A failed construction is not kept: the next run tries again.
      reader.catch(() => this.readers.delete(chain.chainId));
      this.readers.set(chain.chainId, reader);
    }
    return reader;
  }
}
