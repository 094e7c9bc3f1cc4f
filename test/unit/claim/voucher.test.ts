import { inspect } from 'node:util';
import type { Hex } from 'viem' with { 'resolution-mode': 'import' };
import { UnsignableVoucherError, VoucherSigner } from '../../../services/claim/chain/voucher-signer';
import {
  type ClaimCheckVoucher,
  claimCheckTypedData,
  ClaimReason,
  CurrencyType,
  NATIVE_CURRENCY,
  newProof,
  type VoucherDomain,
  voucherDeadline,
  voucherProblems,
} from '../../../services/claim/domain/voucher';

const viem = () => import('viem');

const KEYS: Hex[] = [`0x${'1a'.repeat(32)}`, `0x${'2b'.repeat(32)}`];
const domain: VoucherDomain = {
  name: 'Referral ClaimManager',
  version: '1',
  chainId: 8453,
  verifyingContract: '0x00000000000000000000000000000000000c1a1e',
};
const voucher: ClaimCheckVoucher = {
  projectAddress: '0x1111111111111111111111111111111111111111',
  to: '0x2222222222222222222222222222222222222222',
  currency: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  currencyType: CurrencyType.erc20,
  amount: 12_345_678n,
  reason: ClaimReason.affiliate,
  tokenId: 0n,
  deadline: 1_795_000_000n,
  proof: `0x${'ab'.repeat(32)}`,
};

/** The voucher module and its signer, without a chain (the contract side is test/chain/claim-manager.test.ts). */
describe('claim-check vouchers', () => {
  it('signs once per configured key, in key order, signatures that recover to each signer', async () => {
    const { recoverTypedDataAddress } = await viem();
    const signer = await VoucherSigner.fromPrivateKeys(KEYS);
    const signed = await signer.sign(domain, voucher);

    expect(signed).toEqual({ ...voucher, signatures: [expect.stringMatching(/^0x[0-9a-f]{130}$/), expect.stringMatching(/^0x[0-9a-f]{130}$/)] });
    const recovered = await Promise.all(
      signed.signatures.map((signature) => recoverTypedDataAddress({ ...claimCheckTypedData(domain, voucher), signature })),
    );
    expect(recovered).toEqual(signer.addresses);
    // Deterministic (RFC 6979): the same voucher signed again gives the same signatures.
    expect((await signer.sign(domain, voucher)).signatures).toEqual(signed.signatures);
  });

  it('never shows a key: not in errors, not in the printed or serialised signer', async () => {
    const almostAKey = `0x${'3c'.repeat(31)}zz`;
    const refusal = VoucherSigner.fromPrivateKeys([KEYS[0]!, almostAKey]);
    await expect(refusal).rejects.toThrow('voucher signer key #2 is not a 0x-prefixed 32-byte hex private key');
    await expect(refusal).rejects.not.toThrow(almostAKey.slice(2, 20));

    const signer = await VoucherSigner.fromPrivateKeys(KEYS);
    const shown = [inspect(signer, { depth: 10, showHidden: true }), JSON.stringify(signer), String(signer), inspect({ signer })].join('\n');
    for (const key of KEYS) {
      expect(shown).not.toContain(key.slice(2, 34));
    }
    expect(shown).toContain(signer.addresses[0]);
  });

  it('refuses no keys, and two keys of one signer', async () => {
    await expect(VoucherSigner.fromPrivateKeys([])).rejects.toThrow('at least one voucher signer key is required');
    await expect(VoucherSigner.fromPrivateKeys([KEYS[0]!, KEYS[0]!.toUpperCase().replace('0X', '0x')])).rejects.toThrow('distinct signers');
  });

  it('signs nothing the contract would refuse whatever the signatures, saying why', async () => {
    const signer = await VoucherSigner.fromPrivateKeys(KEYS);
    const cases: Array<[Partial<ClaimCheckVoucher>, string]> = [
      [{ currencyType: CurrencyType.native }, 'a native voucher pays currency 0x0…0'],
      [{ currency: NATIVE_CURRENCY }, 'an erc20 voucher needs the token address as currency'],
      [{ currencyType: 2 as CurrencyType }, 'currencyType must be 0 (native) or 1 (erc20)'],
      [{ reason: 3 as ClaimReason }, 'reason must be 0 (affiliate), 1 (end user) or 2 (agency)'],
      [{ amount: 0n }, 'amount must be a positive uint256'],
      [{ amount: 2n ** 256n }, 'amount must be a positive uint256'],
      [{ tokenId: 1n }, 'tokenId must be 0 for fungible currencies'],
      [{ deadline: 0n }, 'deadline must be a positive uint256 of unix seconds'],
      [{ proof: '0xabcd' }, 'proof must be 32 bytes of hex'],
      [{ to: NATIVE_CURRENCY }, 'to must not be the zero address'],
      [{ to: '0x1234' }, 'to must be a 20-byte hex address'],
      [{ projectAddress: NATIVE_CURRENCY }, 'projectAddress must not be the zero address'],
    ];
    for (const [change, problem] of cases) {
      const refused = signer.sign(domain, { ...voucher, ...change });
      await expect(refused).rejects.toBeInstanceOf(UnsignableVoucherError);
      await expect(refused).rejects.toMatchObject({ problems: [problem] });
    }
    expect(voucherProblems({ ...voucher, currency: NATIVE_CURRENCY, currencyType: CurrencyType.native })).toEqual([]);
    expect(voucherProblems(voucher)).toEqual([]);
  });

  it('sets the deadline to the close time plus the TTL in whole seconds, and makes every proof unique', () => {
    expect(voucherDeadline(new Date('2026-11-21T12:00:00.999Z'), 86_400)).toBe(BigInt(Date.parse('2026-11-22T12:00:00Z') / 1000));
    expect(() => voucherDeadline(new Date(), 0)).toThrow(RangeError);
    expect(() => voucherDeadline(new Date(), 1.5)).toThrow(RangeError);

    const proofs = new Set(Array.from({ length: 1_000 }, () => newProof()));
    expect(proofs.size).toBe(1_000);
    for (const proof of proofs) expect(proof).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('names the reason codes and currency types as the contract numbers them', () => {
    expect(ClaimReason).toEqual({ affiliate: 0, endUser: 1, agency: 2 });
    expect(CurrencyType).toEqual({ native: 0, erc20: 1 });
  });
});
