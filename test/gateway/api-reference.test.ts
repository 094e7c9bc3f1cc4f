import { startStack, type TestStack } from '../helpers/stack';

/** An absolute URL (any scheme) or a protocol-relative one: anything that leaves the gateway. */
const OUTSIDE_URL = /\b[a-z][a-z0-9+.-]*:\/\/|["'(=]\s*\/\//gi;

describe('the API reference page at /docs', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.stop());

  it('loads Swagger UI from the gateway itself', async () => {
    const page = await stack.api.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const asset = await stack.api.get('/docs/assets/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
    expect(asset.text.length).toBeGreaterThan(100_000);
  });

  it('references nothing outside the gateway: relative assets only, and no validator badge', async () => {
    const page = await stack.api.get('/docs');
    const references = [...page.text.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/g)].map((match) => match[1]!);
    expect(references).toEqual(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']);
    for (const reference of references) expect((await stack.api.get(reference)).status).toBe(200);

    const init = await stack.api.get('/docs/init.js');
    const css = await stack.api.get('/docs/assets/swagger-ui.css');
    for (const text of [page.text, init.text]) expect(text.match(OUTSIDE_URL)).toBeNull();
    // The stylesheet loads nothing but inline data.
    const cssUrls = [...css.text.matchAll(/url\(\s*["']?([^"')]*)/g)].map((match) => match[1]!);
    expect(cssUrls.filter((url) => !url.startsWith('data:'))).toEqual([]);

    // Swagger UI's own default would fetch its badge from validator.swagger.io with the document's address.
    const config = JSON.parse(/SwaggerUIBundle\((\{.*?\})\);/s.exec(init.text)![1]!);
    expect(config).toEqual({ url: '/openapi.json', dom_id: '#api-reference', deepLinking: true, validatorUrl: null });

    const document = (await stack.api.get('/openapi.json')).body;
    expect(document.servers).toEqual([{ url: '/' }]);
  });
});
