import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { ApiResponse } from '../helpers/http';
import { TEST_PLATFORM_KEY, TEST_SIWE, type TestStack } from '../helpers/stack';
import { newWallet, signIn, type TestWallet } from '../helpers/wallet';

const viemSiwe = () => import('viem/siwe');

describe('wallet sign-in (Sign-In with Ethereum)', () => {
  let stack: TestStack;
  let project: TestProject;
  let wallet: TestWallet;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    wallet = await newWallet();
  });
  afterAll(() => stack.stop());

  const start = (address: string) => stack.api.post('/api/v1/auth/nonce', { body: { address } });
  const verify = (message: string, signature: string) => stack.api.post('/api/v1/auth/verify', { body: { message, signature } });
  const portalStatus = (token: string, projectId = project.id) =>
    stack.api.get(`/api/v1/projects/${projectId}/affiliate-portal/tax-status`, { key: token });

  describe('POST /api/v1/auth/nonce', () => {
    it('issues an EIP-4361 message for the configured domain, URI and chain, carrying the nonce, issued-at and expiry', async () => {
      const { parseSiweMessage } = await viemSiwe();
      const response = await start(wallet.address);

      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
        message: expect.any(String),
        expires_at: '2026-11-21T12:05:00.000Z',
      });
      const fields = parseSiweMessage(response.body.message);
      expect(fields).toMatchObject({
        domain: TEST_SIWE.domain,
        address: wallet.checksumAddress,
        uri: TEST_SIWE.uri,
        version: '1',
        chainId: TEST_SIWE.chainId,
        nonce: response.body.nonce,
      });
      expect(fields.issuedAt?.toISOString()).toBe(stack.clock.now().toISOString());
      expect(fields.expirationTime?.toISOString()).toBe(response.body.expires_at);
      expect(
        response.body.message.startsWith(`${TEST_SIWE.domain} wants you to sign in with your Ethereum account:\n${wallet.checksumAddress}\n`),
      ).toBe(true);
    });

    it('issues a different nonce every time', async () => {
      const [a, b] = await Promise.all([start(wallet.address), start(wallet.address)]);
      expect(a.body.nonce).not.toBe(b.body.nonce);
    });

    it('refuses an address that is not an Ethereum address, or unknown fields, with 400', async () => {
      const bad = await start('0x1234');
      expect(bad.status).toBe(400);
      expect(bad.body.details).toEqual([{ field: 'address', reason: expect.any(String) }]);
      const extra = await stack.api.post('/api/v1/auth/nonce', { body: { address: wallet.address, chain: 'x' } });
      expect(extra.status).toBe(400);
      expect(extra.body.details).toEqual([{ field: 'chain', reason: 'is not a known field' }]);
    });
  });

  describe('POST /api/v1/auth/verify', () => {
    it('exchanges a message signed by its address for a session token that acts for that address', async () => {
      const issued = await start(wallet.checksumAddress);
      const verified = await verify(issued.body.message, await wallet.sign(issued.body.message));

      expect(verified.status).toBe(200);
      expect(verified.body).toEqual({ token: expect.stringMatching(/^v1\./), address: wallet.address, expires_at: '2026-11-21T12:15:00.000Z' });
      const status = await portalStatus(verified.body.token);
      expect(status.status).toBe(200);
      expect(status.body.status).toBe('not_required');
    });

    it('accepts a nonce once: the same signed message a second time answers 401', async () => {
      const issued = await start(wallet.address);
      const signature = await wallet.sign(issued.body.message);
      expect((await verify(issued.body.message, signature)).status).toBe(200);

      const again = await verify(issued.body.message, signature);
      expect(again.status).toBe(401);
      expect(again.body).toMatchObject({ status: 401, code: 'SIWE_NONCE_INVALID' });
    });

    it('lets exactly one of two simultaneous verifications of one message through', async () => {
      const issued = await start(wallet.address);
      const signature = await wallet.sign(issued.body.message);
      const answers = await Promise.all([verify(issued.body.message, signature), verify(issued.body.message, signature)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    });

    it('refuses a message after its expiration time with 401, and the nonce is spent', async () => {
      const issued = await start(wallet.address);
      const signature = await wallet.sign(issued.body.message);
      stack.clock.set(issued.body.expires_at);
      try {
        const late = await verify(issued.body.message, signature);
        expect(late.status).toBe(401);
        expect(late.body.code).toBe('SIWE_MESSAGE_EXPIRED');
      } finally {
        stack.clock.set('2026-11-21T12:00:00.000Z');
      }
      expect((await verify(issued.body.message, signature)).body.code).toBe('SIWE_NONCE_INVALID');
    });

    it('accepts a message one second before its expiration time', async () => {
      const issued = await start(wallet.address);
      const signature = await wallet.sign(issued.body.message);
      stack.clock.set(new Date(new Date(issued.body.expires_at).getTime() - 1_000));
      try {
        expect((await verify(issued.body.message, signature)).status).toBe(200);
      } finally {
        stack.clock.set('2026-11-21T12:00:00.000Z');
      }
    });

    it('refuses a message altered after it was issued, even when the wallet signed the altered text', async () => {
      const issued = await start(wallet.address);
      const altered = issued.body.message.replace(`URI: ${TEST_SIWE.uri}`, 'URI: https://evil.example/');
      expect(altered).not.toBe(issued.body.message);

      const response = await verify(altered, await wallet.sign(altered));
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('SIWE_MESSAGE_TAMPERED');
      // The attempt spent the nonce: the untouched message no longer works either.
      expect((await verify(issued.body.message, await wallet.sign(issued.body.message))).body.code).toBe('SIWE_NONCE_INVALID');
    });

    it('refuses a message for another domain that reuses an issued nonce', async () => {
      const { createSiweMessage } = await viemSiwe();
      const issued = await start(wallet.address);
      const phishing = createSiweMessage({
        address: wallet.checksumAddress as `0x${string}`,
        chainId: TEST_SIWE.chainId,
        domain: 'evil.example',
        uri: 'https://evil.example',
        version: '1',
        nonce: issued.body.nonce,
        issuedAt: stack.clock.now(),
      });
      const response = await verify(phishing, await wallet.sign(phishing));
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('SIWE_MESSAGE_TAMPERED');
    });

    it('refuses a message signed by another wallet with 401', async () => {
      const issued = await start(wallet.address);
      const intruder = await newWallet();
      const response = await verify(issued.body.message, await intruder.sign(issued.body.message));
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('SIWE_SIGNATURE_INVALID');
    });

    it('refuses a corrupted signature with 401', async () => {
      const issued = await start(wallet.address);
      const signature = await wallet.sign(issued.body.message);
      const corrupted = `${signature.slice(0, 10)}${signature[10] === 'a' ? 'b' : 'a'}${signature.slice(11)}`;
      const response = await verify(issued.body.message, corrupted);
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('SIWE_SIGNATURE_INVALID');
    });

    it('refuses a message whose nonce this service never issued with 401', async () => {
      const { createSiweMessage } = await viemSiwe();
      const invented = createSiweMessage({
        address: wallet.checksumAddress as `0x${string}`,
        chainId: TEST_SIWE.chainId,
        domain: TEST_SIWE.domain,
        uri: TEST_SIWE.uri,
        version: '1',
        nonce: 'abcdef0123456789abcdef0123456789',
        issuedAt: stack.clock.now(),
      });
      const response = await verify(invented, await wallet.sign(invented));
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('SIWE_NONCE_INVALID');
    });

    it('answers 401 for text that is not a sign-in message, and 400 for a malformed signature', async () => {
      const notSiwe = await verify('hello', `0x${'1'.repeat(130)}`);
      expect(notSiwe.status).toBe(401);
      expect(notSiwe.body.code).toBe('SIWE_MESSAGE_INVALID');
      const malformed = await verify('hello', '0x1234');
      expect(malformed.status).toBe(400);
      expect(malformed.body.details).toEqual([{ field: 'signature', reason: expect.any(String) }]);
    });
  });

  describe('session tokens', () => {
    it('expire after SESSION_TTL_SECONDS (900 s by default), measured by the clock', async () => {
      const token = await signIn(stack, wallet);
      try {
        stack.clock.advance(899_000);
        expect((await portalStatus(token)).status).toBe(200);
        stack.clock.advance(1_000);
        const expired = await portalStatus(token);
        expect(expired.status).toBe(401);
        expect(expired.body.code).toBe('UNAUTHENTICATED');
      } finally {
        stack.clock.set('2026-11-21T12:00:00.000Z');
      }
    });

    it('refuse a forged token: another address in the payload, another secret, or none at all', async () => {
      const token = await signIn(stack, wallet);
      const [version, payload, mac] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
      const other = await newWallet();
      const swapped = `${version}.${Buffer.from(JSON.stringify({ ...claims, sub: other.address })).toString('base64url')}.${mac}`;
      const { createHmac } = await import('node:crypto');
      const body = `${version}.${payload}`;
      const wrongSecret = `${body}.${createHmac('sha256', 'not-the-server-secret-0123456789abcdef').update(body).digest('base64url')}`;

      for (const forged of [swapped, wrongSecret, `${token}x`, 'v1.e30.AAAA']) {
        const response = await portalStatus(forged);
        expect(response.status).toBe(401);
      }
      const missing = await stack.api.get(`/api/v1/projects/${project.id}/affiliate-portal/tax-status`);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    });

    it('are not API keys, and API keys are not session tokens', async () => {
      const token = await signIn(stack, wallet);
      expect((await stack.api.get(`/api/v1/projects/${project.id}/tax-settings`, { key: token })).body.code).toBe('WRONG_CREDENTIAL_KIND');
      expect((await portalStatus(project.keys.admin)).body.code).toBe('WRONG_CREDENTIAL_KIND');
    });

    it('answer 404 for a project that does not exist', async () => {
      const token = await signIn(stack, wallet);
      for (const projectId of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const response = await portalStatus(token, projectId);
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('PROJECT_NOT_FOUND');
      }
    });
  });

  /**
   * Every credential against every kind of path. A valid credential of another kind than the path
   * takes answers 401 WRONG_CREDENTIAL_KIND saying which kind the path takes and how to get one;
   * an invalid credential keeps answering UNAUTHENTICATED.
   */
  describe('a valid credential of the wrong kind', () => {
    type Kind = 'platform' | 'api_key' | 'session';
    const TAKES: Record<Kind, string> = {
      platform: 'this endpoint takes the platform key (Authorization: Bearer <PLATFORM_API_KEY of this deployment>)',
      api_key:
        'this endpoint takes a project API key (Authorization: Bearer <key shown once by POST /api/v1/projects or POST /api/v1/projects/{projectId}/api-keys>)',
      session: 'this endpoint takes a wallet session token (Authorization: Bearer <token from POST /api/v1/auth/verify>)',
    };
    const SENT: Record<Kind, string> = {
      platform: 'the platform key was sent',
      api_key: 'an API key was sent',
      session: 'a wallet session token was sent',
    };
    const paths: Array<{ name: string; takes: Kind; call: (key: string) => Promise<ApiResponse> }> = [
      { name: 'project creation', takes: 'platform', call: (key) => stack.api.post('/api/v1/projects', { key, body: { name: 'x' } }) },
      { name: 'an admin path', takes: 'api_key', call: (key) => stack.api.get(`/api/v1/projects/${project.id}/tax-settings`, { key }) },
      { name: 'a /v1 service path', takes: 'api_key', call: (key) => stack.api.get('/v1/audiences/audience-segments', { key }) },
      { name: 'the affiliate portal', takes: 'session', call: (key) => portalStatus(key) },
    ];
    let credentials: Array<{ name: string; kind: Kind; value: string }>;
    beforeAll(async () => {
      credentials = [
        { name: 'the platform key', kind: 'platform', value: TEST_PLATFORM_KEY },
        { name: 'an admin key', kind: 'api_key', value: project.keys.admin },
        { name: 'a service_role key', kind: 'api_key', value: project.keys.service },
        { name: 'a session token', kind: 'session', value: await signIn(stack, wallet) },
      ];
    });
    const projectCount = async () => (await stack.db.query('SELECT count(*)::int AS n FROM access.projects')).rows[0].n as number;

    it.each(paths.map((path) => [path.name, path] as const))(
      '%s: says which kind it takes, for each other kind, and creates nothing',
      async (_name, path) => {
        const before = await projectCount();
        const wrong = credentials.filter((credential) => credential.kind !== path.takes);
        expect(wrong.length).toBeGreaterThanOrEqual(2);
        for (const credential of wrong) {
          const response = await path.call(credential.value);
          expect({ credential: credential.name, status: response.status, body: response.body }).toEqual({
            credential: credential.name,
            status: 401,
            body: { status: 401, code: 'WRONG_CREDENTIAL_KIND', message: `${TAKES[path.takes]}; ${SENT[credential.kind]}`, details: [] },
          });
          expect(response.headers.get('www-authenticate')).toBe('Bearer');
        }
        expect(await projectCount()).toBe(before);
      },
    );

    it.each(paths.map((path) => [path.name, path] as const))(
      '%s: still calls a credential of its own kind valid, and an unknown one of any shape invalid',
      async (_name, path) => {
        const own = credentials.filter((credential) => credential.kind === path.takes);
        for (const credential of own) expect((await path.call(credential.value)).status).not.toBe(401);
        const [version, payload] = credentials.find((credential) => credential.kind === 'session')!.value.split('.');
        const unknown = [`${TEST_PLATFORM_KEY}x`, 'rk_admin_not-a-key', `${version}.${payload}.${'A'.repeat(43)}`, 'anything'];
        for (const value of unknown) {
          const response = await path.call(value);
          expect({ value, status: response.status, code: response.body.code }).toEqual({ value, status: 401, code: 'UNAUTHENTICATED' });
        }
      },
    );

    it('does not take a revoked API key for a credential of another kind', async () => {
      const spare = await stack.api.post(`/api/v1/projects/${project.id}/api-keys`, {
        key: project.keys.admin,
        body: { role: 'read_only', name: 'spare' },
      });
      expect((await stack.api.delete(`/api/v1/projects/${project.id}/api-keys/${spare.body.id}`, { key: project.keys.admin })).status).toBe(204);
      for (const path of paths) expect((await path.call(spare.body.key)).body.code).toBe('UNAUTHENTICATED');
    });
  });
});
