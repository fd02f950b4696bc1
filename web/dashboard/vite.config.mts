import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Where `npm run start:dev` (or `npm start`) listens; the dev server proxies the API there. */
const service = process.env.DASHBOARD_API_URL ?? 'http://localhost:3000';

/**
 * The dashboard: `npm run build` writes dist/web/dashboard, which the service serves at /dashboard;
 * `npm run dashboard:dev` serves it with hot reload and proxies /api and /auth to the service (same
 * origin for the browser, so the session cookie and the Origin check work as in production).
 */
export default defineConfig({
  root: here,
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: path.join(here, '..', '..', 'dist', 'web', 'dashboard'),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    sourcemap: false,
    rolldownOptions: {
      // React Router marks its modules "use client" for server components; a browser bundle has none.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: service, changeOrigin: false },
      '/auth': { target: service, changeOrigin: false },
      '/widget': { target: service, changeOrigin: false },
    },
  },
});
