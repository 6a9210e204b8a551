import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fixture test files run only in the child vitest of the test that drives them (which sets the variable).
    exclude: [...configDefaults.exclude, 'test/browser/**', ...(process.env['CLOBBOT_FUZZ_FIXTURE'] === '1' ? [] : ['test/**/fixtures/**'])],
    testTimeout: 20_000,
    pool: 'threads',
  },
});
