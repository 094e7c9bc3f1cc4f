import path from 'node:path';

/**
 * The API reference at /docs: Swagger UI served from the installed package (no CDN needed). The
 * package's folder is found without loading the package: its index runs the 2 MB browser bundles
 * in Node (half a second of CPU for every gateway started, and for every test file that starts one).
 */
export const swaggerAssetsPath: string = path.dirname(require.resolve('swagger-ui-dist/package.json'));

export const docsPageHtml = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Referral platform API reference</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <div id="api-reference"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

/**
 * Swagger UI's configuration. The page references nothing outside the gateway: Swagger UI would
 * otherwise send the document's address to its public validator (validator.swagger.io) for the
 * badge under the title, which from a real host name leaks that address and fails offline.
 */
export const swaggerUiConfig = {
  url: '/openapi.json',
  dom_id: '#api-reference',
  deepLinking: true,
  validatorUrl: null,
} as const;

export const docsInitScript = `window.addEventListener('load', function () {
  window.SwaggerUIBundle(${JSON.stringify(swaggerUiConfig)});
});
`;
