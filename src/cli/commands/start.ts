/**
 * `clobbot start` (what `npm start` runs): until the local venue and the strategy runner exist, an
 * end-to-end check of the foundation that a fresh machine can run with nothing set up. It validates
 * the run file and the venue config, signs a place-and-cancel batch for the sim network with a
 * throwaway key, reads the signed request back through the relay's strict parser and recovers the
 * signer from the signature.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { liveClock } from '../../core/clock.ts';
import { Decimal } from '../../core/decimal.ts';
import { createIdSource } from '../../core/ids.ts';
import { fromUnits, toPriceUnits, toSizeUnits } from '../../core/units.ts';
import { loadConfigOrThrow } from '../../config/load-config.ts';
import { resolveRunNetwork, runConfigSchema } from '../../config/run-config.ts';
import { simConfigSchema } from '../../config/sim-config.ts';
import { RelayMethod } from '../../protocol/constants.ts';
import { toHexBytes, type Address } from '../../protocol/encoding.ts';
import { tradingWalletDomain } from '../../protocol/eip712-types.ts';
import type { BatchIntent } from '../../protocol/intent-types.ts';
import { recoverBatchIntentSigner, signBatchIntent } from '../../protocol/intent-signing.ts';
import { EXPECT_EMPTY_SLOT } from '../../protocol/relay-payloads.ts';
import { encodeRelayRestRequest, parseRelayRestRequest } from '../../protocol/relay-request.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { summarizeRunConfig, summarizeSimConfig } from './validate.ts';

const DEFAULT_RUN_FILE = 'config/market-maker.yaml';
const DEFAULT_SIM_FILE = 'config/sim.yaml';
/** Distance of the demo quotes from the mid: 20 bp each side. */
const HALF_SPREAD = new Decimal('0.002');

export const startCommand: Command = {
  name: 'start',
  summary: 'check the foundation end to end: configs, signing, the strict relay parser',
  usage: [
    `clobbot start [--config <run file>]`,
    '',
    `  --config <file>   the run file (default ${DEFAULT_RUN_FILE}); its simConfig (default ${DEFAULT_SIM_FILE}) gives the market`,
  ].join('\n'),

  async run(args, io) {
    const { values } = parseCommandArgs(args, { command: 'start', options: { config: { type: 'string' } }, positionals: [] });
    const runFile = values.config ?? DEFAULT_RUN_FILE;
    const run = await loadConfigOrThrow(runFile, runConfigSchema, { env: io.env });
    const simFile = run.simConfig ?? DEFAULT_SIM_FILE;
    const sim = await loadConfigOrThrow(simFile, simConfigSchema, { env: io.env });
    const network = resolveRunNetwork(run, { chainId: sim.chainId });
    const out = (line = '') => io.stdout.write(`${line}\n`);
    out('clobbot start: a check of the foundation (the local venue and the strategy runner come next)');
    out(`  ${runFile}: valid run file (${summarizeRunConfig(run)})`);
    out(`  ${simFile}: valid sim config (${summarizeSimConfig(sim)})`);
    out(`  network ${network.name}: chain ${network.chainId}, relay ${network.hosts.relayUrl}`);

    const symbol = run.strategies[0]?.markets[0] ?? run.markets[0]!;
    const market = sim.markets.find((candidate) => candidate.symbol === symbol);
    if (!market) {
      out(`  market ${symbol} is not in ${simFile}: nothing to sign`);
      return ExitCode.failure;
    }
    const mid = new Decimal(market.flow?.midPrice ?? '1');
    const grid = { pricePrecision: market.pricePrecision, tickSize: market.tickSize };
    const size = toSizeUnits(fromUnits(market.minSize * 20n, market.sizePrecision), market.sizePrecision);
    const bid = toPriceUnits(mid.mul(Decimal.sub(1, HALF_SPREAD)), grid, 'buy');
    const ask = toPriceUnits(mid.mul(Decimal.add(1, HALF_SPREAD)), grid, 'sell');

    // A throwaway key: nothing signed here is valid on any other chain, and the key is never printed.
    const account = privateKeyToAccount(generatePrivateKey());
    const wallet = account.address.toLowerCase() as Address;
    const ids = createIdSource({ clock: liveClock });
    const now = BigInt(liveClock.now());
    const intent: BatchIntent = {
      header: {
        accountId: 1n,
        market: market.address as Address,
        authNonce: 0n,
        nonce: now,
        deadline: now / 1000n + 60n,
        clientOrderId: toHexBytes(BigInt(`0x${ids.next().replace(/-/g, '')}`), 32),
        builder: toHexBytes(0n, 20) as Address,
        builderFeePps: 0n,
      },
      orders: [
        { side: 'BUY', quantity: size, price: bid, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n },
        { side: 'SELL', quantity: size, price: ask, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n },
      ],
      cancelSlotIdxs: [0],
      expectedOrderIds: [EXPECT_EMPTY_SLOT],
    };
    const domain = tradingWalletDomain({ chainId: network.chainId, wallet, version: network.tradingWalletDomainVersion });
    const signature = await signBatchIntent(account, { domain, intent });
    const body = encodeRelayRestRequest({
      requestId: ids.next(),
      method: RelayMethod.executeBatch,
      wallet,
      payload: { ...intent, signature },
      authorization7702: null,
    });
    const human = (units: bigint, precision: bigint) => fromUnits(units, precision);
    out(`  wallet ${wallet} (a throwaway key, never printed)`);
    out(
      `  signed wallet.execute_batch on ${symbol}: cancel slot 0, BUY ${human(size, market.sizePrecision)} @ ${human(bid, market.pricePrecision)}, ` +
        `SELL ${human(size, market.sizePrecision)} @ ${human(ask, market.pricePrecision)}`,
    );

    const parsed = parseRelayRestRequest(body);
    if (!parsed.ok) {
      out(`  the strict relay parser refused the request: ${parsed.error.code} ${parsed.error.message}`);
      return ExitCode.failure;
    }
    if (parsed.value.method !== RelayMethod.executeBatch) return ExitCode.failure;
    const recovered = await recoverBatchIntentSigner({ domain, intent: parsed.value.payload, signature: parsed.value.payload.signature });
    if (recovered !== wallet) {
      out(`  the signature recovers to ${recovered}, not to the wallet`);
      return ExitCode.failure;
    }
    out(`  the strict relay parser accepts the request; its signature recovers to the wallet`);
    out();
    out(`POST ${network.hosts.relayUrl}/relay (${body.length} bytes):`);
    out(JSON.stringify(JSON.parse(body), null, 2));
    return ExitCode.ok;
  },
};
