#!/usr/bin/env node
// The `clobbot` command: the compiled CLI in dist/ (`npm run build`; `npm ci` and `npm install` run it as
// `prepare`). Plain Node, no TypeScript loader: one is registered only when a `.ts` strategy module is loaded.
let cli;
try {
  cli = await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')) {
    process.stderr.write('error: clobbot is not built (no dist/cli/main.js): run `npm run build` (`npm ci` does it)\n');
    process.exit(1);
  }
  throw error;
}
process.exitCode = await cli.main(process.argv.slice(2));
