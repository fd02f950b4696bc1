import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The widget script: `npm run build` writes dist/web/widget/widget.js, which the service serves at
 * /widget.js. One classic script (an IIFE: tenants load it with a plain <script> tag), no chunks,
 * no dependencies; the API types it imports are erased.
 */
export default defineConfig({
  root: here,
  logLevel: 'warn',
  build: {
    outDir: path.join(here, '..', '..', 'dist', 'web', 'widget'),
    emptyOutDir: true,
    target: 'es2020',
    sourcemap: false,
    lib: { entry: path.join(here, 'widget.ts'), formats: ['iife'], name: 'ChatbotWidget', fileName: () => 'widget.js' },
  },
});
