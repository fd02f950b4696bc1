import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OPENAPI_PATH } from './openapi.document';

/**
 * The interactive reference at /docs: Swagger UI from the swagger-ui-dist package, served by the
 * app itself (no CDN). Its scripts are files, so the page's Content-Security-Policy needs no
 * inline script; Swagger UI sets inline styles and uses data: images, and calls this origin only.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Chatbot Platform API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/docs.js"></script>
</body>
</html>
`;

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
});
`;

export interface DocsAsset {
  contentType: string;
  body: Buffer;
}

const FROM_SWAGGER_UI: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

export const DOCS_ASSET_NAMES = ['docs.js', ...Object.keys(FROM_SWAGGER_UI)];

const cache = new Map<string, DocsAsset>();

/** One of the page's files, read once; undefined for any other name. */
export function docsAsset(name: string): DocsAsset | undefined {
  if (!DOCS_ASSET_NAMES.includes(name)) return undefined;
  let asset = cache.get(name);
  if (!asset) {
    asset =
      name === 'docs.js'
        ? { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(INIT_SCRIPT) }
        : { contentType: FROM_SWAGGER_UI[name], body: readFileSync(path.join(swaggerUiDirectory(), name)) };
    cache.set(name, asset);
  }
  return asset;
}

function swaggerUiDirectory(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}
