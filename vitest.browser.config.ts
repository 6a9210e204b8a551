import { defineConfig } from 'vitest/config';

/** Tests that drive a real headless Chromium (Debian's /usr/bin/chromium): `npm run test:browser`, not `npm test`. */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
