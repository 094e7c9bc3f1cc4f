import { gatewayConfigSchema } from '../../../gateway/config';
import { loadConfig } from '../../../services/platform/config';

/** What the gateway makes of its environment where the values depend on each other. */
describe('gateway configuration', () => {
  it('derives the sign-in domain and URI from PORT unless they are set', () => {
    expect(loadConfig(gatewayConfigSchema, {})).toMatchObject({ SIWE_DOMAIN: 'localhost:8080', SIWE_URI: 'http://localhost:8080' });
    expect(loadConfig(gatewayConfigSchema, { PORT: '9090' })).toMatchObject({ SIWE_DOMAIN: 'localhost:9090', SIWE_URI: 'http://localhost:9090' });
    expect(
      loadConfig(gatewayConfigSchema, { PORT: '9090', SIWE_DOMAIN: 'app.example.com', SIWE_URI: 'https://app.example.com/login' }),
    ).toMatchObject({
      SIWE_DOMAIN: 'app.example.com',
      SIWE_URI: 'https://app.example.com/login',
    });
    expect(() => loadConfig(gatewayConfigSchema, { SIWE_DOMAIN: 'https://app.example.com' })).toThrow(/SIWE_DOMAIN: a host, optionally with :port/);
  });

  it('reads CHAIN_RPC_URLS as the claim service does (chainId=URL,…), refusing what is not one', () => {
    expect(loadConfig(gatewayConfigSchema, {}).chainRpcUrls).toEqual(new Map());
    expect(loadConfig(gatewayConfigSchema, { CHAIN_RPC_URLS: '' }).chainRpcUrls).toEqual(new Map());
    const config = loadConfig(gatewayConfigSchema, { CHAIN_RPC_URLS: '8453=https://base.example/rpc?key=abc, 1=http://127.0.0.1:8545' });
    expect(config.chainRpcUrls).toEqual(
      new Map([
        [8453, 'https://base.example/rpc?key=abc'],
        [1, 'http://127.0.0.1:8545'],
      ]),
    );
    expect(config.CHAIN_RPC_TIMEOUT_MS).toBe(5_000);
    expect(() => loadConfig(gatewayConfigSchema, { CHAIN_RPC_URLS: '8453' })).toThrow(/CHAIN_RPC_URLS: "8453" is not chainId=value/);
    expect(() => loadConfig(gatewayConfigSchema, { CHAIN_RPC_URLS: '8453=ftp://nope' })).toThrow(/CHAIN_RPC_URLS: chain 8453: the URL must be http/);
    expect(() => loadConfig(gatewayConfigSchema, { CHAIN_RPC_URLS: '1=http://a.example,1=http://b.example' })).toThrow(/chain 1 is listed twice/);
  });

  it('takes an empty value (NAME= in a .env copied from .env.example) as unset', () => {
    const config = loadConfig(gatewayConfigSchema, {
      PORT: '9091',
      PLATFORM_API_KEY: '',
      SIWE_DOMAIN: '',
      SIWE_URI: '',
      SESSION_SECRET: '',
      SHUTDOWN_GRACE_MS: '',
      RATE_LIMIT_PER_SECOND: '',
    });
    expect(config.PLATFORM_API_KEY).toBeUndefined();
    expect(config).toMatchObject({
      SIWE_DOMAIN: 'localhost:9091',
      SIWE_URI: 'http://localhost:9091',
      sessionSecretIsDevelopment: true,
      // Not coerced to 0.
      SHUTDOWN_GRACE_MS: 25_000,
      RATE_LIMIT_PER_SECOND: 1_000,
    });
  });

  it('serves metrics on a port of their own, on the loopback unless told otherwise, and times slow requests out after 30 s', () => {
    expect(loadConfig(gatewayConfigSchema, {})).toMatchObject({
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: 9464,
      HEADERS_TIMEOUT_MS: 30_000,
      REQUEST_TIMEOUT_MS: 30_000,
    });
    expect(() => loadConfig(gatewayConfigSchema, { PORT: '9464' })).toThrow(/METRICS_PORT: must differ from PORT \(9464\)/);
    expect(loadConfig(gatewayConfigSchema, { PORT: '0', METRICS_PORT: '0' })).toMatchObject({ PORT: 0, METRICS_PORT: 0 });
    // Node refuses a headers timeout above the request's (which includes the headers).
    expect(() => loadConfig(gatewayConfigSchema, { HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      /HEADERS_TIMEOUT_MS: must be at most REQUEST_TIMEOUT_MS \(30000\)/,
    );
    expect(loadConfig(gatewayConfigSchema, { HEADERS_TIMEOUT_MS: '40000', REQUEST_TIMEOUT_MS: '120000' })).toMatchObject({
      HEADERS_TIMEOUT_MS: 40_000,
    });
  });
});
