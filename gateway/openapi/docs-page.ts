import { getAbsoluteFSPath } from 'swagger-ui-dist';

/** The API reference at /docs: Swagger UI served from the installed package (no CDN needed). */
export const swaggerAssetsPath: string = getAbsoluteFSPath();

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

export const docsInitScript = `window.addEventListener('load', function () {
  window.SwaggerUIBundle({ url: '/openapi.json', dom_id: '#api-reference', deepLinking: true });
});
`;
