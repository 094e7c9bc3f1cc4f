import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompress } from './precompress';

/**
 * The web applications, built into web/dist and served by the gateway under /app
 * (gateway/http/web-app.ts). Everything is bundled: the pages load nothing from the internet.
 * Built with `vite build web` (this folder is the root). `npm run web:dev` proxies the API to a gateway on localhost:8080.
 * Two pages: the applications (index.html) and the @fuul/sdk tracking demo (demo/index.html, /app/demo).
 * The admin dashboard, the portal and each of their sections are chunks of their own (lazy routes), so a
 * page loads only its code; text assets get brotli and gzip copies (./precompress.ts). No source maps: the
 * gateway serves dist/ as it is, and a map would publish the sources.
 */
const page = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export default defineConfig({
  base: '/app/',
  plugins: [react(), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    rollupOptions: { input: { main: page('./index.html'), demo: page('./demo/index.html') } },
  },
  server: {
    proxy: { '/api': 'http://localhost:8080', '/v1': 'http://localhost:8080' },
  },
});
