/**
 * ed25519 signatures of Solana and Stellar wallets, checked with node:crypto, and the few text
 * encodings their keys and signatures travel in: base58 (Bitcoin's alphabet: Solana addresses and
 * signatures), Stellar's strkey (G… account ids: base32 of a version byte, the key and a CRC16), hex,
 * and base64 (standard or URL-safe, padded or not).
 */
import { createPublicKey, verify } from 'node:crypto';

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_VALUES = new Map([...BASE58_ALPHABET].map((char, index) => [char, index]));
const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** ed25519 public keys are 32 bytes, signatures 64. */
export const ED25519_PUBLIC_KEY_BYTES = 32;
const ED25519_SIGNATURE_BYTES = 64;
/** Strkey version byte of an account id (a public key): 6 << 3, which base32 spells as a leading G. */
const STELLAR_ACCOUNT_VERSION = 6 << 3;

/** Base58 (Bitcoin's alphabet, as Solana uses it) -> bytes; undefined when the text is not base58. */
export function decodeBase58(text: string): Uint8Array | undefined {
  if (text.length === 0) return undefined;
  const bytes: number[] = [];
  for (const char of text) {
    const value = BASE58_VALUES.get(char);
    if (value === undefined) return undefined;
    let carry = value;
    for (let index = 0; index < bytes.length; index += 1) {
      carry += bytes[index]! * 58;
      bytes[index] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  // Each leading '1' is a leading zero byte.
  for (let index = 0; index < text.length && text[index] === '1'; index += 1) bytes.push(0);
  return Uint8Array.from(bytes.reverse());
}

/** RFC 4648 base32 without padding -> bytes; undefined when the text is not base32 or leaves stray bits. */
function decodeBase32(text: string): Uint8Array | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = BASE32_ALPHABET.indexOf(char);
    if (value < 0) return undefined;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  if (bits >= 5 || (buffer & ((1 << bits) - 1)) !== 0) return undefined;
  return Uint8Array.from(bytes);
}

/** CRC-16/XMODEM (polynomial 0x1021, initial 0), the strkey checksum. */
function crc16Xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** A Stellar account id (G…, strkey) -> its 32-byte ed25519 public key; undefined unless the version and checksum are right. */
export function decodeStellarPublicKey(strkey: string): Uint8Array | undefined {
  if (strkey.length !== 56) return undefined;
  const raw = decodeBase32(strkey);
  if (!raw || raw.length !== 1 + ED25519_PUBLIC_KEY_BYTES + 2 || raw[0] !== STELLAR_ACCOUNT_VERSION) return undefined;
  const payload = raw.subarray(0, 1 + ED25519_PUBLIC_KEY_BYTES);
  const checksum = raw[raw.length - 2]! | (raw[raw.length - 1]! << 8);
  return crc16Xmodem(payload) === checksum ? payload.slice(1) : undefined;
}

const HEX = /^(0x)?((?:[0-9a-fA-F]{2})+)$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Every reading of `text` as `length` bytes in the encodings wallets use: hex (with or without 0x),
 * base58, base64 (standard or URL-safe, padded or not). A string can be valid in more than one (a
 * hex string is also base64), so the caller tries each; at most three.
 */
export function decodeBytes(text: string, length: number): Uint8Array[] {
  const readings: Uint8Array[] = [];
  const hex = HEX.exec(text);
  if (hex) readings.push(Buffer.from(hex[2]!, 'hex'));
  const base58 = decodeBase58(text);
  if (base58) readings.push(base58);
  if (BASE64.test(text) && text.replace(/=+$/, '').length % 4 !== 1) readings.push(Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
  return readings.filter((bytes) => bytes.length === length);
}

/** A public key as a wallet may hand it over: a Stellar account id (G…) or 32 bytes in hex, base58 or base64. */
export function decodePublicKey(text: string): Uint8Array[] {
  const stellar = decodeStellarPublicKey(text);
  return stellar ? [stellar] : decodeBytes(text, ED25519_PUBLIC_KEY_BYTES);
}

/** True when `signature` (64 bytes in any encoding of decodeBytes) is `publicKey`'s ed25519 signature of `message`. */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: string): boolean {
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) return false;
  let key;
  try {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' });
  } catch {
    return false;
  }
  return decodeBytes(signature, ED25519_SIGNATURE_BYTES).some((bytes) => {
    try {
      return verify(null, message, key, bytes);
    } catch {
      return false;
    }
  });
}
