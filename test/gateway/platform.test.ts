import { CATALOG } from '../../services/platform/service-catalog';
import { startStack, type TestStack } from '../helpers/stack';

describe('gateway platform endpoints', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.stop());

  it('answers /healthz', async () => {
    const response = await stack.api.get('/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('reports PostgreSQL, Redis and every service of the catalog as up on /readyz', async () => {
    const response = await stack.api.get('/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'ready',
      checks: { postgres: 'up', redis: 'up', ...Object.fromEntries(CATALOG.map((service) => [service.name, 'up'])) },
    });
  });
});
