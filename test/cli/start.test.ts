import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/cli-harness.ts';

describe('clobbot start', () => {
  it('validates the configs, signs a batch, and reads it back through the strict parser', async () => {
    const run = await runCli(['start']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('config/market-maker.yaml: valid run file');
    expect(run.stdout).toContain('the strict relay parser accepts the request; its signature recovers to the wallet');
    const body = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
    expect(body.method).toBe('wallet.execute_batch');
    expect(body.payload.orders).toHaveLength(2);
    expect(run.stdout).toContain(`wallet ${body.wallet}`);
    // The throwaway key is never printed: the only 32-byte hex values are the client order id.
    const hex32 = run.stdout.match(/0x[0-9a-f]{64}(?![0-9a-f])/g) ?? [];
    expect(hex32).toEqual([body.payload.header.clientOrderId]);
  });

  it('reports a broken run file with its location and exit 2', async () => {
    const dir = tempDir();
    try {
      const file = dir.write('bad.yaml', 'network: sim\nmarkets: [MON_USDC]\nstrategies: []\nrisk: {}\nbogus: 1\n');
      const run = await runCli(['start', '--config', file]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('bogus');
      expect(run.stderr).not.toMatch(/\n\s+at /);
    } finally {
      dir.remove();
    }
  });
});
