import { generateKeyPairSync, sign as signRaw } from 'node:crypto';
import { HttpError } from '../../../gateway/http/errors';
import { requireWalletProof, type WalletProof, WalletSignatures } from '../../../gateway/auth/wallet-signatures';
import { encodeBase58, encodeSignature, encodeStellarPublicKey, newSolanaWallet, newStellarWallet } from '../../helpers/ed25519-wallet';
import { newWallet } from '../../helpers/wallet';

const signatures = new WalletSignatures('I confirm that I am creating the {code} code');
const MESSAGE = 'I confirm that I am creating the Alice code';

describe('WalletSignatures.verify without a chain', () => {
  it('accepts an EVM key’s own EIP-191 signature and refuses another message’s', async () => {
    const wallet = await newWallet();
    const proof = { identifier: wallet.address, identifierType: 'evm_address', message: MESSAGE, signature: await wallet.sign(MESSAGE) };
    expect(await signatures.verify(proof)).toEqual({ kind: 'valid' });
    expect(await signatures.verify({ ...proof, message: `${MESSAGE}!` })).toEqual({ kind: 'invalid' });
    expect(await signatures.verify({ ...proof, signature: 'not hex' })).toEqual({ kind: 'invalid' });
  });

  it('answers unverifiable, naming the chain, when a signature that is not the key’s own names a chain with no RPC URL', async () => {
    const wallet = await newWallet();
    const proof = {
      identifier: wallet.address,
      identifierType: 'evm_address',
      message: MESSAGE,
      signature: await wallet.sign('other'),
      chainId: 8453,
    };
    const result = await signatures.verify(proof);
    expect(result).toEqual({ kind: 'unverifiable', reason: expect.stringContaining('chain 8453 is not configured (CHAIN_RPC_URLS)') });
    // The key's own signature needs no chain, whatever chain it names.
    expect(await signatures.verify({ ...proof, signature: await wallet.sign(MESSAGE) })).toEqual({ kind: 'valid' });
  });

  it.each(['base58', 'base64', 'hex'] as const)('accepts a Solana key’s ed25519 signature of the message in %s', async (encoding) => {
    const wallet = newSolanaWallet();
    const proof = { identifier: wallet.address, identifierType: 'solana_address', message: MESSAGE, signature: wallet.sign(MESSAGE, encoding) };
    expect(await signatures.verify(proof)).toEqual({ kind: 'valid' });
    expect(await signatures.verify({ ...proof, message: 'I confirm that I am creating the Bob code' })).toEqual({ kind: 'invalid' });
  });

  it('takes a Solana signature_public_key only when it is the address’s own key', async () => {
    const wallet = newSolanaWallet();
    const proof: WalletProof = { identifier: wallet.address, identifierType: 'solana_address', message: MESSAGE, signature: wallet.sign(MESSAGE) };
    expect(await signatures.verify({ ...proof, publicKey: wallet.address })).toEqual({ kind: 'valid' });
    expect(await signatures.verify({ ...proof, publicKey: wallet.publicKey.toString('hex') })).toEqual({ kind: 'valid' });
    expect(await signatures.verify({ ...proof, publicKey: newSolanaWallet().address })).toEqual({ kind: 'invalid' });
    // Another key's valid signature, for the address, is no proof of the address.
    const other = newSolanaWallet();
    expect(await signatures.verify({ ...proof, signature: other.sign(MESSAGE), publicKey: other.address })).toEqual({ kind: 'invalid' });
  });

  it('refuses a Solana address that is no 32-byte key', async () => {
    const proof = { identifier: encodeBase58(Buffer.alloc(31, 7)), identifierType: 'solana_address', message: MESSAGE, signature: 'x' };
    expect(await signatures.verify(proof)).toEqual({ kind: 'invalid' });
  });

  it('accepts a Stellar account’s SEP-53 signature in base64, hex or base58, with its key as signature_public_key', async () => {
    const wallet = newStellarWallet();
    const proof: WalletProof = { identifier: wallet.address, identifierType: 'stellar_address', message: MESSAGE, signature: wallet.sign(MESSAGE) };
    expect(await signatures.verify(proof)).toEqual({ kind: 'valid' });
    expect(await signatures.verify({ ...proof, signature: wallet.sign(MESSAGE, 'hex'), publicKey: wallet.address })).toEqual({ kind: 'valid' });
    expect(await signatures.verify({ ...proof, signature: wallet.sign(MESSAGE, 'base58'), publicKey: wallet.publicKey.toString('base64') })).toEqual({
      kind: 'valid',
    });
    expect(await signatures.verify({ ...proof, publicKey: newStellarWallet().address })).toEqual({ kind: 'invalid' });
    expect(await signatures.verify({ ...proof, message: 'something else' })).toEqual({ kind: 'invalid' });
    // Another last character (an address ending in A once in 32 would otherwise be left unchanged and pass).
    const altered = `${wallet.address.slice(0, -1)}${wallet.address.endsWith('A') ? 'B' : 'A'}`;
    expect(await signatures.verify({ ...proof, identifier: altered })).toEqual({ kind: 'invalid' });
  });

  it('accepts a Stellar signature of the bare message', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const address = encodeStellarPublicKey(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
    const signature = encodeSignature(signRaw(null, Buffer.from(MESSAGE), privateKey), 'base64');
    expect(await signatures.verify({ identifier: address, identifierType: 'stellar_address', message: MESSAGE, signature })).toEqual({
      kind: 'valid',
    });
  });

  it.each(['sui_address', 'xrpl_address', 'email'])('answers unverifiable for %s, whose signatures are not checked here', async (identifierType) => {
    const result = await signatures.verify({ identifier: 'x', identifierType, message: MESSAGE, signature: '0x00' });
    expect(result).toEqual({ kind: 'unverifiable', reason: expect.stringContaining(identifierType) });
  });
});

describe('requireWalletProof', () => {
  const refusal = (proof: WalletProof) =>
    requireWalletProof(signatures, proof).then(
      () => undefined,
      (error: HttpError) => ({ status: error.status, code: error.code, message: error.message }),
    );

  it('lets a valid proof through, and answers 400 `invalid signature` or 422 SIGNATURE_UNVERIFIABLE otherwise', async () => {
    const wallet = newSolanaWallet();
    const proof = { identifier: wallet.address, identifierType: 'solana_address', message: MESSAGE, signature: wallet.sign(MESSAGE) };
    expect(await refusal(proof)).toBeUndefined();
    expect(await refusal({ ...proof, message: 'other' })).toEqual({ status: 400, code: 'INVALID_SIGNATURE', message: 'invalid signature' });
    expect(await refusal({ ...proof, identifierType: 'sui_address' })).toMatchObject({ status: 422, code: 'SIGNATURE_UNVERIFIABLE' });
  });
});
