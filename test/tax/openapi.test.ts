import { startStack, type TestStack } from '../helpers/stack';

/** Every sign-in, affiliate-portal and tax-administration route is in the API reference, with its shapes. */
describe('the API reference for sign-in and tax', () => {
  let stack: TestStack;
  let document: any;
  beforeAll(async () => {
    stack = await startStack();
    document = (await stack.api.get('/openapi.json')).body;
  });
  afterAll(() => stack.stop());

  const routes: Array<[string, string, string, boolean]> = [
    ['post', '/api/v1/auth/nonce', 'none', true],
    ['post', '/api/v1/auth/verify', 'none', true],
    ['post', '/api/v1/projects/{projectId}/affiliate-portal/tax-info', 'walletSession', true],
    ['get', '/api/v1/projects/{projectId}/affiliate-portal/tax-info', 'walletSession', false],
    ['get', '/api/v1/projects/{projectId}/affiliate-portal/tax-status', 'walletSession', false],
    ['get', '/api/v1/projects/{projectId}/tax-settings', 'apiKey', false],
    ['patch', '/api/v1/projects/{projectId}/tax-settings', 'apiKey', true],
    ['get', '/api/v1/projects/{projectId}/tax-submissions', 'apiKey', false],
    ['post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-info/approve', 'apiKey', false],
    ['post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-info/revoke', 'apiKey', true],
    ['get', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-status', 'apiKey', false],
    ['get', '/api/v1/projects/{projectId}/audit-log', 'apiKey', false],
  ];

  it.each(routes)('documents %s %s with its security, request and response shapes', (method, path, scheme, hasBody) => {
    const operation = document.paths[path]?.[method];
    expect(operation).toBeDefined();
    expect(operation.security).toEqual(scheme === 'none' ? [] : [{ [scheme]: [] }]);
    if (hasBody) expect(operation.requestBody.content['application/json'].schema).toBeDefined();
    const success = Object.entries<{ content?: { 'application/json': { schema: unknown } } }>(operation.responses).find(([code]) => code.startsWith('2'));
    expect(success?.[1].content?.['application/json'].schema).toBeDefined();
    for (const [code, response] of Object.entries<{ content?: unknown }>(operation.responses)) {
      if (Number(code) >= 400) expect(response.content).toBeDefined();
    }
  });

  it('describes the wallet session scheme, the three tax forms and the masked tax id', () => {
    expect(document.components.securitySchemes.walletSession).toMatchObject({ type: 'http', scheme: 'bearer' });
    const submit = document.paths['/api/v1/projects/{projectId}/affiliate-portal/tax-info'].post;
    const forms = submit.requestBody.content['application/json'].schema.oneOf;
    expect(forms.map((form: { properties: { form_type: { const: string } } }) => form.properties.form_type.const)).toEqual(['w9', 'w8ben', 'w8bene']);
    for (const form of forms) expect(form.additionalProperties).toBe(false);
    expect(forms[2].properties.chapter3_status.enum).toContain('central_bank_of_issue');
    const answer = submit.responses['201'].content['application/json'].schema;
    expect(answer.properties.tax_id_number.description).toMatch(/last four/);
    expect(submit.responses['409']).toBeDefined();
  });
});
