import { connect } from 'node:net';
import { createProject, createSegment, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { startStack, TEST_PLATFORM_KEY, type TestStack } from '../helpers/stack';

describe('HTTP conventions of the gateway', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject({ gatewayEnv: { JSON_BODY_LIMIT: '1kb', RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '5' } }));
  });
  afterAll(() => stack.stop());

  const expectErrorBody = (body: unknown, status: number, code: string) =>
    expect(body).toEqual({ status, code, message: expect.any(String), details: expect.any(Array) });

  it('answers unknown paths with 404 and a known path with the wrong method with 405 and Allow', async () => {
    const missing = await stack.api.get('/v1/nothing-here');
    expect(missing.status).toBe(404);
    expectErrorBody(missing.body, 404, 'ROUTE_NOT_FOUND');

    const wrongMethod = await stack.api.request('PUT', `/v1/audience-segments/x/badge`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST, PATCH, DELETE');
    expectErrorBody(wrongMethod.body, 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers malformed JSON with 400, a non-JSON body with 415 and an oversized one with 413', async () => {
    const path = `/api/v1/projects/${project.id}/audiences`;
    const malformed = await stack.api.post(path, { key: project.keys.admin, rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expectErrorBody(malformed.body, 400, 'INVALID_JSON');
    const text = await stack.api.post(path, { key: project.keys.admin, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } });
    expectErrorBody(text.body, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const big = await stack.api.post(path, { key: project.keys.admin, body: { name: 'x', description: 'd'.repeat(2_000) } });
    expectErrorBody(big.body, 413, 'PAYLOAD_TOO_LARGE');
    const { rows } = await stack.db.query('SELECT count(*)::int AS n FROM audience.segments');
    expect(rows[0].n).toBe(0);
  });

  it('authenticates before reading a body', async () => {
    const response = await stack.api.post(`/api/v1/projects/${project.id}/audiences`, {
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(401);
  });

  it('echoes a sane X-Request-Id, makes one otherwise, and logs requests with it', async () => {
    const given = await stack.api.get('/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc.123');
    const made = await stack.api.get('/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const line = stack.logs.lines.map((l) => JSON.parse(l)).find((l) => l.request_id === 'trace-abc.123' && l.msg === 'request');
    expect(line).toMatchObject({ route: '/healthz', status: 200, method: 'GET' });
  });

  it('carries the request id into the audience service’s logs', async () => {
    const segment = await createSegment(stack, project);
    await stack.api.post(`/v1/audience-segments/${segment.id}/entries/batch?wait=true`, {
      key: project.keys.service,
      headers: { 'x-request-id': 'batch-trace-1' },
      body: { entries: [{ identifier: `0x${'1'.repeat(40)}`, identifier_type: 'evm_address' }] },
    });
    const applied = stack.logs.lines.map((l) => JSON.parse(l)).find((l) => l.service === 'audience' && l.msg === 'entry batch applied');
    expect(applied?.request_id).toBe('batch-trace-1');
  });

  it('rate-limits each key and answers 429 with Retry-After', async () => {
    const own = await createProject(stack);
    // Sent together, so that they arrive within the same fraction of a second however loaded the
    // machine is (one after the other, a slow answer each lets the bucket refill: 5 a second).
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => stack.api.get('/v1/audiences/audience-segments', { key: own.keys.service })),
    );
    const limited = responses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expectErrorBody(limited[0]!.body, 429, 'RATE_LIMITED');
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another key has its own allowance.
    expect((await stack.api.get('/v1/audiences/audience-segments', { key: own.keys.readOnly })).status).toBe(200);
  });

  it('exposes Prometheus metrics labelled by route on a port of their own, and answers /metrics 404 on the public port', async () => {
    await stack.api.get('/healthz');
    const metrics = await fetch(stack.metricsUrl);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = await metrics.text();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(text).toContain('process_resident_memory_bytes');
    expect(new URL(stack.metricsUrl).port).not.toBe(new URL(stack.baseUrl).port);

    const hidden = await stack.api.get('/metrics');
    expect(hidden.status).toBe(404);
    expectErrorBody(hidden.body, 404, 'ROUTE_NOT_FOUND');
    expect(hidden.text).not.toContain('process_resident_memory_bytes');
    // The metrics port serves nothing else.
    const other = await fetch(new URL('/healthz', stack.metricsUrl));
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ status: 404, code: 'ROUTE_NOT_FOUND' });
    const posted = await fetch(stack.metricsUrl, { method: 'POST' });
    expect(posted.status).toBe(405);
  });

  it('sends the API’s security headers on every answer, and /docs its own page policy', async () => {
    const answers = await Promise.all([
      stack.api.get('/healthz'),
      stack.api.get('/openapi.json'),
      stack.api.get('/v1/nothing-here'),
      stack.api.get('/v1/audiences/audience-segments'),
      stack.api.get('/v1/audiences/audience-segments', { key: project.keys.readOnly }),
      stack.api.post(`/api/v1/projects/${project.id}/api-keys`, { key: project.keys.admin, body: { role: 'read_only', name: 'shown once' } }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 404, 401, 200, 201]);
    for (const answer of answers) {
      expect(answer.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      // The new key's secret is in the last answer: no cache may keep any answer.
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }

    const docs = await stack.api.get('/docs');
    expect(docs.status).toBe(200);
    const policy = docs.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe-eval');
    expect(docs.headers.get('x-frame-options')).toBe('DENY');
    // Swagger UI's own files are cached like any static file.
    const stylesheet = await stack.api.get('/docs/assets/swagger-ui.css');
    expect(stylesheet.status).toBe(200);
    expect(stylesheet.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(stylesheet.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('says /readyz is not ready when a service it uses is down', async () => {
    const lonely = await startStack({ gatewayEnv: { AUDIENCE_GRPC_ADDR: '127.0.0.1:1' } });
    try {
      const response = await lonely.api.get('/readyz');
      expect(response.status).toBe(503);
      expect(response.body.checks).toMatchObject({ postgres: 'up', redis: 'up', audience: 'down' });
      const own = await createProject(lonely);
      const call = await lonely.api.get('/v1/audiences/audience-segments', { key: own.keys.service });
      expectErrorBody(call.body, 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await lonely.stop();
    }
  });
});

describe('input refused at the edge (what PostgreSQL cannot store, malformed paths and requests)', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());

  it('refuses the NUL character anywhere in a body, query or path with 400 naming the field, and stores nothing', async () => {
    const segment = await createSegment(stack, project);
    const responses = await Promise.all([
      stack.api.post(`/api/v1/projects/${project.id}/audiences`, { key: project.keys.admin, body: { name: 'ok', description: 'a\u0000b' } }),
      stack.api.post(`/api/v1/projects/${project.id}/audiences`, { key: project.keys.admin, body: { name: 'ok', condition: { k: 'v\u0000' } } }),
      stack.api.post('/api/v1/projects', { key: TEST_PLATFORM_KEY, body: { name: 'x\u0000' } }),
      stack.api.post(`/v1/audience-segments/${segment.id}/badge`, { key: project.keys.service, body: { name: 'b', description: '\u0000' } }),
      stack.api.get('/v1/audiences/audience-segments/user?user_identifier=a%00@example.com&user_identifier_type=email', {
        key: project.keys.service,
      }),
      stack.api.delete(`/v1/audience-segments/${segment.id}/entries/a%00b`, { key: project.keys.service }),
    ]);
    const fields = ['description', 'condition.k', 'name', 'description', 'user_identifier', 'userIdentifier'];
    responses.forEach((response, i) => {
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: fields[i], reason: 'must not contain the NUL character' }],
      });
    });
    const { rows } = await stack.db.query(
      `SELECT (SELECT count(*) FROM audience.segments WHERE project_id = $1)::int AS segments,
              (SELECT count(*) FROM audience.badges b JOIN audience.segments s ON s.id = b.segment_id WHERE s.project_id = $1)::int AS badges`,
      [project.id],
    );
    expect(rows[0]).toEqual({ segments: 1, badges: 0 });
  });

  const expectStandardError = (response: { status: number; body: unknown; headers: Headers }, status: number, code: string) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.body).toEqual({ status, code, message: expect.any(String), details: [] });
  };

  it('answers a malformed percent-encoding in a path parameter with 400 on every route, with or without a key, and logs no error', async () => {
    const start = stack.logs.lines.length;
    const segment = await createSegment(stack, project);
    const paths = [
      '/v1/audience-segments/%ff/entries',
      `/v1/audience-segments/${segment.id}/entries/%E0%A4%A`,
      '/api/v1/audience-segments/%/badge',
      `/api/v1/projects/%zz/audiences`,
      `/api/v1/projects/${project.id}/affiliates/%ed%a0%80/tax-status`,
    ];
    for (const path of paths) {
      for (const key of [undefined, project.keys.service, project.keys.admin]) {
        for (const method of ['GET', 'POST', 'DELETE']) {
          expectStandardError(await stack.api.request(method, path, { key }), 400, 'INVALID_PATH_ENCODING');
        }
      }
    }
    const levels = stack.logs.lines.slice(start).map((line) => JSON.parse(line).level);
    expect(levels).not.toContain('error');
  });

  it('answers a query string or headers over the server’s limit with 431 in the standard body', async () => {
    const query = await stack.api.get(`/v1/audiences/audience-segments?page=1&pad=${'a'.repeat(20_000)}`, { key: project.keys.service });
    expectStandardError(query, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
    const header = await stack.api.get('/healthz', { headers: { 'x-padding': 'b'.repeat(20_000) } });
    expectStandardError(header, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
    expect((await stack.api.get('/healthz')).status).toBe(200);
  });

  it('answers a request that is not valid HTTP, or a URL that cannot be read, in the standard body', async () => {
    const port = Number(new URL(stack.baseUrl).port);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString('latin1')));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
      });
    const cases: Array<[string, number, string]> = [
      ['BREW / HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'MALFORMED_REQUEST'],
      ['GET /v1/audience-segments/\x01 HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'MALFORMED_REQUEST'],
      ['GET / HTTP/9.9\r\nHost: x\r\n\r\n', 400, 'MALFORMED_REQUEST'],
      ['GET / HTTP/1.1\r\nBad Header\r\n\r\n', 400, 'MALFORMED_REQUEST'],
      ['GET http://[::1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, 'MALFORMED_REQUEST'],
      ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405, 'METHOD_NOT_ALLOWED'],
    ];
    for (const [request, status, code] of cases) {
      const answer = await raw(request);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head!.toLowerCase()).toContain('content-type: application/json');
      expect(JSON.parse(body!)).toEqual({ status, code, message: expect.any(String), details: [] });
    }
  });
});
