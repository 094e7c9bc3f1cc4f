import { IFuulManagerAbi } from '@fuul/protocol-abis/v2';
import type { Abi, Address, Hex } from 'viem' with { 'resolution-mode': 'import' };
import { claimManagerAbi } from '../../contracts/generated/claim-manager';
import { VoucherSigner } from '../../services/claim/chain/voucher-signer';
import {
  type ClaimCheckVoucher,
  claimCheckTypedData,
  ClaimReason,
  CurrencyType,
  NATIVE_CURRENCY,
  newProof,
  type SignedVoucher,
  type VoucherDomain,
} from '../../services/claim/domain/voucher';
import { startChain, type TestAccount, type TestChain } from '../helpers/evm';

const viem = () => import('viem');

/** Fixed signer keys (test-only): two authorised, one the contract never heard of. */
const key = (n: number): Hex => `0x${n.toString(16).padStart(2, '0').repeat(32)}`;
const ETHER = 10n ** 18n;
const TOKEN_DEPOSIT = 1_000_000_000n; // 1,000 TUSD at 6 decimals
const NATIVE_DEPOSIT = 5n * ETHER;

/** The revert's custom error name, walking viem's error chain; fails the test if the call succeeded. */
async function revertOf(attempt: Promise<unknown>): Promise<string> {
  const { BaseError, ContractFunctionRevertedError } = await viem();
  try {
    await attempt;
  } catch (error) {
    if (error instanceof BaseError) {
      const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
      if (reverted instanceof ContractFunctionRevertedError && reverted.data?.errorName) return reverted.data.errorName;
    }
    throw error;
  }
  throw new Error('the call succeeded; a revert was expected');
}

/** ClaimManager and a test token on the in-process chain: voucher signing, redemption and every refusal. */
describe('ClaimManager on the in-process EVM', () => {
  let chain: TestChain;
  let owner: TestAccount;
  let project: TestAccount;
  let user: TestAccount;
  let relayer: TestAccount;
  let signers: VoucherSigner;
  let outsider: VoucherSigner;
  let manager: Address;
  let token: Address;
  let tokenAbi: Abi;
  let domain: VoucherDomain;
  let restore: () => Promise<void>;

  /** The generated module's ABI (contracts/generated/claim-manager.ts): every call here goes through the one copy. */
  const managerAbi: Abi = claimManagerAbi;
  const read = (functionName: string, args: readonly unknown[] = [], address = manager, abi = managerAbi) =>
    chain.publicClient.readContract({ address, abi, functionName, args });
  const tokenBalance = (holder: Address) => read('balanceOf', [holder], token, tokenAbi) as Promise<bigint>;
  const projectBalance = (currency: Address, projectAddress: Address = project.address) =>
    read('projectBalances', [projectAddress, currency]) as Promise<bigint>;
  const isClaimed = (proof: Hex) => read('claimedProofs', [proof]) as Promise<boolean>;

  async function send(
    from: TestAccount,
    functionName: string,
    args: readonly unknown[],
    options: { address?: Address; abi?: Abi; value?: bigint } = {},
  ) {
    const hash = await from.wallet.writeContract({
      address: options.address ?? manager,
      abi: options.abi ?? managerAbi,
      functionName,
      args,
      value: options.value,
    });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  }

  /** Redeems through the service's own typed ABI, as the claim service and wallets will. */
  async function claim(vouchers: SignedVoucher[], from: TestAccount = user) {
    const hash = await from.wallet.writeContract({ address: manager, abi: claimManagerAbi, functionName: 'claim', args: [vouchers] });
    return chain.publicClient.waitForTransactionReceipt({ hash });
  }

  async function voucher(overrides: Partial<ClaimCheckVoucher> = {}): Promise<ClaimCheckVoucher> {
    return {
      projectAddress: project.address,
      to: user.address,
      currency: token,
      currencyType: CurrencyType.erc20,
      amount: 250_000_000n,
      reason: ClaimReason.affiliate,
      tokenId: 0n,
      deadline: (await chain.timestamp()) + 3_600n,
      proof: newProof(),
      ...overrides,
    };
  }

  const signed = async (overrides: Partial<ClaimCheckVoucher> = {}) => signers.sign(domain, await voucher(overrides));

  beforeAll(async () => {
    chain = await startChain({ accounts: 4 });
    [owner, project, user, relayer] = chain.accounts as [TestAccount, TestAccount, TestAccount, TestAccount];
    signers = await VoucherSigner.fromPrivateKeys([key(0xa1), key(0xa2)]);
    outsider = await VoucherSigner.fromPrivateKeys([key(0xb1)]);

    ({ address: token, abi: tokenAbi } = await chain.deploy('TestToken', ['Test USD', 'TUSD', 6]));
    ({ address: manager } = await chain.deploy('ClaimManager', [owner.address, 'Referral ClaimManager', '1', signers.addresses, 2n]));
    domain = { name: 'Referral ClaimManager', version: '1', chainId: chain.chainId, verifyingContract: manager };

    await send(project, 'mint', [project.address, TOKEN_DEPOSIT], { address: token, abi: tokenAbi });
    await send(project, 'approve', [manager, TOKEN_DEPOSIT], { address: token, abi: tokenAbi });
    await send(project, 'deposit', [project.address, token, TOKEN_DEPOSIT]);
    await send(project, 'deposit', [project.address, NATIVE_CURRENCY, NATIVE_DEPOSIT], { value: NATIVE_DEPOSIT });
  });

  afterAll(async () => {
    await chain?.stop();
  });

  // Every test starts from the funded deployment above and leaves nothing behind.
  beforeEach(async () => {
    restore = await chain.snapshot();
  });
  afterEach(async () => {
    await restore();
  });

  describe('the ABI and the signed data', () => {
    it("has Fuul v2's claim(ClaimCheck[]) and Claimed event exactly, in the generated ABI every caller imports", () => {
      type Entry = { type: string; name?: string };
      const generated = claimManagerAbi as readonly Entry[];
      const fuul = IFuulManagerAbi as readonly Entry[];
      const entry = (abi: readonly Entry[], type: string, name: string) => abi.find((e) => e.type === type && e.name === name);
      const shared: Array<[string, string]> = [
        ['function', 'claim'],
        ['event', 'Claimed'],
        ['function', 'requiredSigners'],
        ['function', 'setRequiredSigners'],
        ['event', 'RequiredSignersUpdated'],
        ...['DeadlineExpired', 'DuplicateSigner', 'IncorrectMsgValue', 'InvalidArgument', 'InvalidSigner', 'NotEnoughSignatures', 'ZeroAddress'].map(
          (name): [string, string] => ['error', name],
        ),
      ];
      for (const [type, name] of shared) {
        expect(entry(fuul, type, name)).toBeDefined();
        expect(entry(generated, type, name)).toEqual(entry(fuul, type, name));
      }
    });

    it('hashes a voucher on chain exactly as the signer module builds its typed data, under the configured domain', async () => {
      const { hashTypedData } = await viem();
      const check = await signed({ reason: ClaimReason.agency, amount: 2n ** 200n });
      expect(await read('hashClaimCheck', [check])).toBe(hashTypedData(claimCheckTypedData(domain, check)));
      const [, name, version, chainId, verifyingContract] = (await read('eip712Domain')) as [Hex, string, string, bigint, Address];
      expect({ name, version, chainId: Number(chainId), verifyingContract }).toEqual(domain);
      expect(await read('requiredSigners')).toBe(2n);
      for (const address of signers.addresses) expect(await read('isSigner', [address])).toBe(true);
    });
  });

  describe('redeeming vouchers', () => {
    it('pays an ERC20 voucher out of the project balance and logs Claimed with every field', async () => {
      const { parseEventLogs } = await viem();
      const check = await signed();
      const receipt = await claim([check]);

      expect(receipt.status).toBe('success');
      expect(await tokenBalance(user.address)).toBe(check.amount);
      expect(await tokenBalance(manager)).toBe(TOKEN_DEPOSIT - check.amount);
      expect(await projectBalance(token)).toBe(TOKEN_DEPOSIT - check.amount);
      expect(await projectBalance(NATIVE_CURRENCY)).toBe(NATIVE_DEPOSIT);
      expect(await isClaimed(check.proof)).toBe(true);
      const logs = parseEventLogs({ abi: claimManagerAbi, eventName: 'Claimed', logs: receipt.logs });
      expect(logs).toHaveLength(1);
      expect(logs[0]?.address).toBe(manager.toLowerCase());
      expect(logs[0]?.args).toEqual({
        projectAddress: project.address,
        to: user.address,
        currency: token,
        amount: check.amount,
        currencyType: CurrencyType.erc20,
        tokenId: 0n,
        reason: ClaimReason.affiliate,
        proof: check.proof,
      });
    });

    it('pays a native voucher to `to`, whoever sends the transaction', async () => {
      const check = await signed({
        currency: NATIVE_CURRENCY,
        currencyType: CurrencyType.native,
        amount: (3n * ETHER) / 2n,
        reason: ClaimReason.endUser,
      });
      const before = await chain.publicClient.getBalance({ address: user.address });
      const receipt = await claim([check], relayer);

      expect(receipt.status).toBe('success');
      expect(await chain.publicClient.getBalance({ address: user.address })).toBe(before + check.amount);
      expect(await chain.publicClient.getBalance({ address: manager })).toBe(NATIVE_DEPOSIT - check.amount);
      expect(await projectBalance(NATIVE_CURRENCY)).toBe(NATIVE_DEPOSIT - check.amount);
    });

    it('redeems several vouchers in one call, in order, and the same proofs never again', async () => {
      const { parseEventLogs } = await viem();
      const first = await signed({ reason: ClaimReason.affiliate, amount: 100n });
      const second = await signed({ reason: ClaimReason.agency, amount: 200n });
      const third = await signed({ currency: NATIVE_CURRENCY, currencyType: CurrencyType.native, reason: ClaimReason.endUser, amount: 300n });
      const receipt = await claim([first, second, third]);

      const logs = parseEventLogs({ abi: claimManagerAbi, eventName: 'Claimed', logs: receipt.logs });
      expect(logs.map((log) => [log.args.proof, log.args.amount, log.args.reason])).toEqual([
        [first.proof, 100n, ClaimReason.affiliate],
        [second.proof, 200n, ClaimReason.agency],
        [third.proof, 300n, ClaimReason.endUser],
      ]);
      expect(await tokenBalance(user.address)).toBe(300n);
      expect(await revertOf(claim([second]))).toBe('ProofAlreadyClaimed');
    });

    it('serves the Claimed logs over HTTP JSON-RPC, as the claim service will read them after N confirmations', async () => {
      const { createPublicClient, http } = await viem();
      const endpoint = await chain.serveHttp();
      try {
        // cacheTime 0: viem would otherwise answer getBlockNumber from a 4-second cache.
        const remote = createPublicClient({ chain: chain.chain, transport: http(endpoint.url), cacheTime: 0 });
        const from = await remote.getBlockNumber();
        const check = await signed();
        const receipt = await claim([check]);
        await chain.mine(5);

        expect(await remote.getBlockNumber()).toBe(receipt.blockNumber + 5n);
        const logs = await remote.getContractEvents({
          address: manager,
          abi: claimManagerAbi,
          eventName: 'Claimed',
          fromBlock: from + 1n,
          toBlock: receipt.blockNumber,
        });
        expect(logs.map((log) => [log.transactionHash, log.args.proof, log.args.to, log.args.amount])).toEqual([
          [receipt.transactionHash, check.proof, user.address, check.amount],
        ]);
        expect(await remote.readContract({ address: manager, abi: claimManagerAbi, functionName: 'claimedProofs', args: [check.proof] })).toBe(true);
        // A JSON-RPC batch and a malformed body get JSON-RPC answers too.
        const batch = await fetch(endpoint.url, {
          method: 'POST',
          body: JSON.stringify([
            { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
            { jsonrpc: '2.0', id: 2, method: 'no_such_method' },
          ]),
        }).then((response) => response.json());
        expect(batch).toEqual([
          { jsonrpc: '2.0', id: 1, result: `0x${chain.chainId.toString(16)}` },
          { jsonrpc: '2.0', id: 2, error: expect.objectContaining({ code: expect.any(Number) }) },
        ]);
        expect(await fetch(endpoint.url, { method: 'POST', body: '{' }).then((response) => response.json())).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32700, message: 'Parse error' },
        });
      } finally {
        await endpoint.close();
      }
    });

    it('accepts a voucher in the block whose timestamp is its deadline, and refuses it one second later', async () => {
      const deadline = (await chain.timestamp()) + 100n;
      const onTime = await signed({ deadline });
      await chain.provider.request({ method: 'evm_setNextBlockTimestamp', params: [`0x${deadline.toString(16)}`] });
      expect((await claim([onTime])).status).toBe('success');

      const late = await signed({ deadline });
      await chain.increaseTime(1);
      expect(await revertOf(claim([late]))).toBe('DeadlineExpired');
    });
  });

  describe('refusing vouchers, changing nothing', () => {
    /** Asserts the claim reverts with `error` and that no balance or proof moved. */
    async function expectRefused(vouchers: SignedVoucher[], error: string) {
      const before = [await tokenBalance(user.address), await projectBalance(token), await projectBalance(NATIVE_CURRENCY)];
      expect(await revertOf(claim(vouchers))).toBe(error);
      expect([await tokenBalance(user.address), await projectBalance(token), await projectBalance(NATIVE_CURRENCY)]).toEqual(before);
      for (const check of vouchers) expect(await isClaimed(check.proof)).toBe(false);
    }

    it('refuses a replayed proof, even re-signed with another amount', async () => {
      const check = await signed({ amount: 1_000n });
      await claim([check]);
      const balance = await tokenBalance(user.address);

      expect(await revertOf(claim([check]))).toBe('ProofAlreadyClaimed');
      expect(await revertOf(claim([await signed({ amount: 5_000n, proof: check.proof })]))).toBe('ProofAlreadyClaimed');
      expect(await tokenBalance(user.address)).toBe(balance);
    });

    it('refuses an expired voucher', async () => {
      const check = await signed({ deadline: (await chain.timestamp()) + 60n });
      await chain.increaseTime(61);
      await expectRefused([check], 'DeadlineExpired');
    });

    it('refuses a forged signature and one from a key that is not an authorised signer', async () => {
      const check = await signed();
      const [first, second] = check.signatures as [Hex, Hex];
      // One byte of r changed: it recovers to some other address.
      const forged = `${first.slice(0, 10)}${first[10] === '0' ? '1' : '0'}${first.slice(11)}` as Hex;
      await expectRefused([{ ...check, signatures: [forged, second] }], 'InvalidSigner');
      await expectRefused([{ ...check, signatures: [`0x${'ab'.repeat(65)}`, second] }], 'InvalidSigner');

      const {
        signatures: [foreign],
      } = await outsider.sign(domain, check);
      await expectRefused([{ ...check, signatures: [first, foreign as Hex] }], 'InvalidSigner');
    });

    it('refuses too few signatures, and the same signer twice', async () => {
      const check = await signed();
      const [first] = check.signatures as [Hex, Hex];
      await expectRefused([{ ...check, signatures: [first] }], 'NotEnoughSignatures');
      await expectRefused([{ ...check, signatures: [] }], 'NotEnoughSignatures');
      await expectRefused([{ ...check, signatures: [first, first] }], 'DuplicateSigner');
    });

    it('refuses a voucher whose recipient, amount, reason, project or domain differs from what was signed', async () => {
      const check = await signed();
      await expectRefused([{ ...check, to: relayer.address }], 'InvalidSigner');
      await expectRefused([{ ...check, amount: check.amount + 1n }], 'InvalidSigner');
      await expectRefused([{ ...check, reason: ClaimReason.endUser }], 'InvalidSigner');
      await expectRefused([{ ...check, deadline: check.deadline + 1n }], 'InvalidSigner');
      const otherChain = await signers.sign({ ...domain, chainId: domain.chainId + 1 }, await voucher());
      await expectRefused([otherChain], 'InvalidSigner');
      const otherContract = await signers.sign({ ...domain, verifyingContract: token }, await voucher());
      await expectRefused([otherContract], 'InvalidSigner');
    });

    it("refuses a claim beyond the project's balance, and another project's funds are not reachable", async () => {
      await expectRefused([await signed({ amount: TOKEN_DEPOSIT + 1n })], 'InsufficientProjectBalance');
      await expectRefused(
        [await signed({ currency: NATIVE_CURRENCY, currencyType: CurrencyType.native, amount: NATIVE_DEPOSIT + 1n })],
        'InsufficientProjectBalance',
      );
      await expectRefused([await signed({ projectAddress: relayer.address, amount: 1n })], 'InsufficientProjectBalance');
      // Two vouchers that fit alone but not together.
      await expectRefused([await signed({ amount: 600_000_000n }), await signed({ amount: 600_000_000n })], 'InsufficientProjectBalance');
    });

    it('refuses the whole batch when one voucher in it is refused', async () => {
      const good = await signed();
      const bad = await signed();
      await expectRefused([good, { ...bad, signatures: bad.signatures.slice(0, 1) }], 'NotEnoughSignatures');
    });
  });

  describe('signers and funds', () => {
    it("lets only the owner change signers and the threshold; a removed signer's vouchers stop working", async () => {
      const check = await signed();
      expect(await revertOf(send(relayer, 'setSigner', [relayer.address, true]))).toBe('OwnableUnauthorizedAccount');
      expect(await revertOf(send(relayer, 'setRequiredSigners', [1n]))).toBe('OwnableUnauthorizedAccount');
      expect(await revertOf(send(owner, 'setRequiredSigners', [0n]))).toBe('InvalidArgument');

      await send(owner, 'setSigner', [signers.addresses[1], false]);
      expect(await revertOf(claim([check]))).toBe('InvalidSigner');

      await send(owner, 'setRequiredSigners', [1n]);
      expect((await claim([{ ...check, signatures: check.signatures.slice(0, 1) }])).status).toBe('success');
      expect(await tokenBalance(user.address)).toBe(check.amount);
    });

    it('takes deposits only with the matching value, and gives a project its own funds back only', async () => {
      expect(await revertOf(send(relayer, 'deposit', [project.address, NATIVE_CURRENCY, ETHER], { value: ETHER - 1n }))).toBe('IncorrectMsgValue');
      expect(await revertOf(send(relayer, 'deposit', [project.address, token, 1n], { value: 1n }))).toBe('IncorrectMsgValue');
      expect(await revertOf(send(relayer, 'deposit', [project.address, NATIVE_CURRENCY, 0n]))).toBe('InvalidArgument');
      expect(await revertOf(send(relayer, 'withdraw', [token, 1n, relayer.address]))).toBe('InsufficientProjectBalance');

      await send(relayer, 'deposit', [project.address, NATIVE_CURRENCY, ETHER], { value: ETHER });
      expect(await projectBalance(NATIVE_CURRENCY)).toBe(NATIVE_DEPOSIT + ETHER);
      await send(project, 'withdraw', [token, 400n, relayer.address]);
      expect(await tokenBalance(relayer.address)).toBe(400n);
      expect(await projectBalance(token)).toBe(TOKEN_DEPOSIT - 400n);
    });

    it('refuses ether sent along with claim: it charges no fee', async () => {
      const check = await signed();
      const attempt = user.wallet.writeContract({ address: manager, abi: claimManagerAbi, functionName: 'claim', args: [[check]], value: 1n });
      expect(await revertOf(attempt)).toBe('IncorrectMsgValue');
    });
  });
});
