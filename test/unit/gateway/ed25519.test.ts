import { decodeBase58, decodeBytes, decodePublicKey, decodeStellarPublicKey, verifyEd25519 } from '../../../gateway/auth/ed25519';
import { encodeBase58, encodeSignature, encodeStellarPublicKey } from '../../helpers/ed25519-wallet';

const hex = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('hex') : undefined);

/** RFC 8032 §7.1, tests 1 and 2. */
const RFC8032 = [
  {
    publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
];

describe('base58 (Bitcoin’s alphabet, as Solana writes keys and signatures)', () => {
  it.each([
    ['2g', '61'],
    ['a3gV', '626262'],
    ['aPEr', '636363'],
    ['2cFupjhnEsSn59qHXstmK2ffpLv2', '73696d706c792061206c6f6e6720737472696e67'],
    ['1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L', '00eb15231dfceb60925886b67d065299925915aeb172c06647'],
    ['111233QC4', '000000287fb4cd'],
    ['1111111111', '00000000000000000000'],
    ['FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z', RFC8032[0]!.publicKey],
  ])('decodes %s to %s, and the test helper encodes it back', (text, bytes) => {
    expect(hex(decodeBase58(text))).toBe(bytes);
    expect(encodeBase58(Buffer.from(bytes, 'hex'))).toBe(text);
  });

  it.each(['', '0abc', 'Oabc', 'Iabc', 'labc', 'ab+c'])('refuses %j (empty, or a character outside the alphabet)', (text) => {
    expect(decodeBase58(text)).toBeUndefined();
  });
});

describe('Stellar strkey account ids (G…)', () => {
  it('decodes SEP-23’s account id to its public key, and the test helper encodes it back', () => {
    const key = '3f0c34bf93ad0d9971d04ccc90f705511c838aad9734a4a2fb0d7a03fc7fe89a';
    expect(hex(decodeStellarPublicKey('GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ'))).toBe(key);
    expect(encodeStellarPublicKey(Buffer.from(key, 'hex'))).toBe('GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ');
  });

  it.each([
    ['a wrong checksum', 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGA'],
    ['a secret seed (S…, another version byte)', 'SBU2RRGLXH3E5CQHTD3ODLDF2BWDCYUSSBLLZ5GNW7JXHDIYKXZWHOKR'],
    ['a short id', 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSG'],
    ['lowercase', 'ga7qynf7sowq3glr2bgmzehxavirza4kvwltjjfc7mgxua74p7ujvsgz'],
  ])('refuses %s', (_, strkey) => {
    expect(decodeStellarPublicKey(strkey)).toBeUndefined();
  });
});

describe('signature and key encodings', () => {
  const signature = Buffer.from(RFC8032[0]!.signature, 'hex');

  it.each(['hex', 'base58', 'base64'] as const)('reads a 64-byte signature written in %s', (encoding) => {
    expect(decodeBytes(encodeSignature(signature, encoding), 64).map(hex)).toContain(RFC8032[0]!.signature);
  });

  it('reads 0x-prefixed hex and URL-safe unpadded base64', () => {
    expect(decodeBytes(`0x${RFC8032[0]!.signature}`, 64).map(hex)).toContain(RFC8032[0]!.signature);
    expect(decodeBytes(signature.toString('base64url'), 64).map(hex)).toContain(RFC8032[0]!.signature);
  });

  it('reads nothing of the wrong length or in no encoding', () => {
    expect(decodeBytes(RFC8032[0]!.publicKey, 64)).toEqual([]);
    expect(decodeBytes('not a signature!', 64)).toEqual([]);
  });

  it('reads a public key as a Stellar account id, base58, hex or base64', () => {
    const key = RFC8032[0]!.publicKey;
    const raw = Buffer.from(key, 'hex');
    for (const text of [encodeStellarPublicKey(raw), encodeBase58(raw), key, raw.toString('base64')]) {
      expect(decodePublicKey(text).map(hex)).toContain(key);
    }
  });
});

describe('verifyEd25519 (node:crypto)', () => {
  it.each(RFC8032)('accepts RFC 8032’s signature by $publicKey in hex, base58 and base64', ({ publicKey, message, signature }) => {
    const key = Buffer.from(publicKey, 'hex');
    const bytes = Buffer.from(message, 'hex');
    for (const encoding of ['hex', 'base58', 'base64'] as const) {
      expect(verifyEd25519(key, bytes, encodeSignature(Buffer.from(signature, 'hex'), encoding))).toBe(true);
    }
  });

  it('refuses another message, another key, a flipped bit and a malformed signature', () => {
    const [first, second] = RFC8032 as [(typeof RFC8032)[0], (typeof RFC8032)[0]];
    const key = Buffer.from(first.publicKey, 'hex');
    expect(verifyEd25519(key, Buffer.from('00', 'hex'), first.signature)).toBe(false);
    expect(verifyEd25519(Buffer.from(second.publicKey, 'hex'), Buffer.alloc(0), first.signature)).toBe(false);
    const flipped = Buffer.from(first.signature, 'hex');
    flipped.writeUInt8(flipped.readUInt8(10) ^ 1, 10);
    expect(verifyEd25519(key, Buffer.alloc(0), flipped.toString('hex'))).toBe(false);
    expect(verifyEd25519(key, Buffer.alloc(0), 'zz')).toBe(false);
    expect(verifyEd25519(key.subarray(0, 31), Buffer.alloc(0), first.signature)).toBe(false);
  });
});
