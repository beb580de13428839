import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The dashboard builds to static files in dist/web, which `agentd serve` serves at `/`. */
export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
  },
  // `npm run dev:web` against an `agentd serve` on the default port.
  server: {
    proxy: { '/v1': 'http://127.0.0.1:8080', '/health': 'http://127.0.0.1:8080' },
  },
});
