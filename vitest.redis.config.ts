import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * Sweeps through BullMQ with `clobbot worker` processes, each test file on a redis-server of its own
 * (Debian's /usr/bin/redis-server): `npm run test:redis`, not `npm test`.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/redis/**/*.test.ts'],
    exclude: [...configDefaults.exclude],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
