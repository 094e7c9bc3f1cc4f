import { endpointUrlProblem } from '../../../services/webhooks/domain/endpoint-url';

describe('endpoint URLs', () => {
  it.each([
    ['https://hooks.example.com/referrals', false, undefined],
    ['https://hooks.example.com:8443/a?b=c', true, undefined],
    ['http://localhost:3000/hook', false, undefined],
    ['http://127.0.0.1/hook', false, undefined],
    ['http://[::1]:8080/hook', false, undefined],
    ['http://localhost:3000/hook', true, 'must use https'],
    ['http://hooks.example.com/hook', false, 'must use https (plain http is accepted only for localhost outside production)'],
    ['http://127.0.0.2/hook', false, 'must use https (plain http is accepted only for localhost outside production)'],
    ['http://localhost.evil.com/hook', false, 'must use https (plain http is accepted only for localhost outside production)'],
    ['ftp://hooks.example.com/', false, 'must use https'],
    ['javascript:alert(1)', false, 'must use https'],
    ['hooks.example.com/x', false, 'must be an absolute URL (https://...)'],
    ['', false, 'must be an absolute URL (https://...)'],
    ['https://user:pw@hooks.example.com/', false, 'must not contain credentials; authenticate deliveries by their signature'],
    ['https://hooks.example.com/#part', false, 'must not contain a fragment'],
    [`https://hooks.example.com/${'a'.repeat(2_048)}`, false, 'must be at most 2048 characters'],
  ])('%s (production %s): %s', (url, production, problem) => {
    expect(endpointUrlProblem(url, production)).toBe(problem);
  });
});
