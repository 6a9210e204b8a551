import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // Tests (and the strategies they load) import `clobbot` from src/, not from the built dist/.
  resolve: {
    alias: [
      { find: /^clobbot$/, replacement: source('./src/index.ts') },
      { find: /^clobbot\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^clobbot\/strategy$/, replacement: source('./src/strategy/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Fixture test files run only in the child vitest of the test that drives them (which sets the variable).
    exclude: [...configDefaults.exclude, 'test/browser/**', 'test/redis/**', ...(process.env['CLOBBOT_FUZZ_FIXTURE'] === '1' ? [] : ['test/**/fixtures/**'])],
    testTimeout: 20_000,
    pool: 'threads',
    // Files share their worker's modules (state that must not leak, like the harness's nonces, is
    // kept per clock): a fresh module graph per file cost about two of the suite's seven minutes.
    isolate: false,
    // The tests that spawn bin/clobbot.js run the compiled CLI: dist/ is rebuilt first when src/ changed.
    globalSetup: ['test/package/build-dist.ts'],
  },
});
