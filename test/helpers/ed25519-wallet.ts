import { createHash, generateKeyPairSync, sign } from 'node:crypto';

/**
 * Solana and Stellar wallets for tests: a fresh ed25519 key, its address (base58 for Solana, the
 * G… strkey for Stellar), and signatures made as those wallets make them (Solana's signMessage signs
 * the message's bytes; Stellar's SEP-53 signs SHA-256 of "Stellar Signed Message:\n" + message).
 */
export type SignatureEncoding = 'hex' | 'base58' | 'base64';

export interface Ed25519Wallet {
  /** The raw 32-byte public key. */
  publicKey: Buffer;
  address: string;
  sign(message: string, encoding?: SignatureEncoding): string;
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function encodeBase58(bytes: Uint8Array): string {
  let value = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let text = '';
  while (value > 0n) {
    text = BASE58_ALPHABET[Number(value % 58n)] + text;
    value /= 58n;
  }
  for (let index = 0; index < bytes.length && bytes[index] === 0; index += 1) text = `1${text}`;
  return text;
}

function encodeBase32(bytes: Uint8Array): string {
  let text = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      text += BASE32_ALPHABET[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) text += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return text;
}

function crc16Xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** A 32-byte ed25519 public key as a Stellar account id (G…). */
export function encodeStellarPublicKey(publicKey: Uint8Array): string {
  const payload = Buffer.concat([Buffer.from([6 << 3]), publicKey]);
  const checksum = crc16Xmodem(payload);
  return encodeBase32(Buffer.concat([payload, Buffer.from([checksum & 0xff, checksum >> 8])]));
}

export function encodeSignature(signature: Buffer, encoding: SignatureEncoding): string {
  if (encoding === 'base58') return encodeBase58(signature);
  return signature.toString(encoding);
}

function newKey() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  return { privateKey, raw: Buffer.from(jwk.x!, 'base64url') };
}

export function newSolanaWallet(): Ed25519Wallet {
  const { privateKey, raw } = newKey();
  return {
    publicKey: raw,
    address: encodeBase58(raw),
    sign: (message, encoding = 'base58') => encodeSignature(sign(null, Buffer.from(message, 'utf8'), privateKey), encoding),
  };
}

export function newStellarWallet(): Ed25519Wallet {
  const { privateKey, raw } = newKey();
  return {
    publicKey: raw,
    address: encodeStellarPublicKey(raw),
    sign: (message, encoding = 'base64') => {
      const digest = createHash('sha256').update(`Stellar Signed Message:\n${message}`, 'utf8').digest();
      return encodeSignature(sign(null, digest, privateKey), encoding);
    },
  };
}
