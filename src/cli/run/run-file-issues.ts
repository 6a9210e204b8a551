/**
 * What `clobbot run` (and `clobbot validate`) check in a run file once its schema holds, located in
 * the file like schema problems:
 *
 * - the rules of the network asked for with `--network` (the schema checked the file's own);
 * - what a run needs there (`account.id` off the sim);
 * - each market given whole against the venue's market rules (`marketSpecIssues`: powers of ten,
 *   positive tick and sizes, fees in range, symbol = BASE_QUOTE), the rules the engine and the venue
 *   hold every market to. They live with the venue model, a layer above the config schemas.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { BaseError } from '../../core/base-error.ts';
import type { ConfigIssue } from '../../config/config-issue.ts';
import { configError, loadConfigOrThrow } from '../../config/load-config.ts';
import type { NetworkName } from '../../config/network-config.ts';
import { runMarketSymbol, runNetworkProblems, runRequirementProblems, type RunConfig, type RunFileProblem } from '../../config/run-config.ts';
import { simConfigSchema, type SimConfig } from '../../config/sim-config.ts';
import { loadRunStrategies, type LoadedStrategy } from '../../strategy/load-strategy.ts';
import { readWalletKey } from '../../execution/wallet-key.ts';
import { locatedIssue, type YamlSource } from '../../config/yaml-source.ts';
import { marketSpecIssues } from '../../protocol/market-spec.ts';

/**
 * Every such problem of a schema-valid run file for `network` (default: the file's), in file order.
 *
 * @example runFileIssues(source, config, 'testnet').map(formatConfigIssue) // ['run.yaml:9:5 markets[0].tickSize: must be positive']
 */
export function runFileIssues(source: YamlSource, config: RunConfig, network: NetworkName = config.network): ConfigIssue[] {
  const problems: RunFileProblem[] = [...(network === config.network ? [] : runNetworkProblems(config, network)), ...runRequirementProblems(config, network)];
  config.markets.forEach((market, index) => {
    if (typeof market === 'string') return;
    for (const issue of marketSpecIssues(market)) problems.push({ path: ['markets', index, ...issue.field], message: issue.message });
  });
  return problems
    .map((problem) => locatedIssue(source, problem.path, problem.message))
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

/**
 * The sim config a run on network `sim` reads (`simConfig`, default config/sim.yaml), checked as
 * `clobbot run` reads it, and, for the in-process venue (no `venueUrl`), every market of the run
 * against the sim config's markets: `run.yaml:4:21 markets[1]: WETH_USDC is not a market of the
 * venue (config/sim.yaml lists MON_USDC)`, the message the run gives once its venue is up. Throws
 * the run's errors (CONFIG_FILE_UNREADABLE, CONFIG_INVALID, … of the sim config; CONFIG_INVALID
 * located in the run file for a market).
 */
export async function checkRunSimConfig(source: YamlSource, config: RunConfig, env: Record<string, string | undefined>, defaultFile: string): Promise<SimConfig | undefined> {
  if (config.network !== 'sim') return undefined;
  const simFile = config.simConfig ?? defaultFile;
  const sim = await loadConfigOrThrow(simFile, simConfigSchema, { env });
  if (config.venueUrl !== undefined) return sim;
  const listed = sim.markets.map((market) => market.symbol);
  const issues = config.markets.flatMap((market, index) => {
    const symbol = runMarketSymbol(market);
    return listed.includes(symbol) ? [] : [locatedIssue(source, ['markets', index], `${symbol} is not a market of the venue (${simFile} lists ${listed.join(', ') || 'none'})`)];
  });
  if (issues.length > 0) throw configError(source.file, issues);
  return sim;
}

export interface RunFileChecks {
  readonly env: Record<string, string | undefined>;
  /** Where module and key file paths are resolved. */
  readonly cwd: string;
  /** The network traded (`--network`, else the file's). */
  readonly network: NetworkName;
  /** The sim config of a sim run without `simConfig`. */
  readonly defaultSimConfig: string;
}

/**
 * Everything `clobbot run` checks in a schema-valid run file (with `runFileIssues` clean) before it
 * touches a network, in the run's order, throwing the run's own errors: each strategy module loads
 * and its params pass its schema (located in the run file), the key source exists and is safe
 * (`CONFIG_WALLET_KEY_*`), and on the sim the sim config is valid and lists every market.
 * `clobbot validate` calls it so it refuses exactly what `clobbot run` would.
 */
export async function checkRunFileBeforeNetwork(source: YamlSource, config: RunConfig, checks: RunFileChecks): Promise<{ strategies: LoadedStrategy[] }> {
  const strategies = await loadRunStrategies(source, config, { cwd: checks.cwd });
  // The key is checked as the run would; its address only when `account.owner` names an account it
  // may not own (making the account loads viem: ~90 ms of validate). A sim run's ephemeral key is
  // made by the run itself: nothing to check.
  const owner = config.account.owner?.toLowerCase();
  const key = config.wallet;
  let ownAccount = owner === undefined;
  if (owner === undefined && key.kind !== 'ephemeral') await readWalletKey(key, { env: checks.env, cwd: checks.cwd });
  else if (key.kind !== 'ephemeral' || checks.network !== 'sim') {
    const wallet = await (await import('../../execution/signer-source.ts')).loadSigner({ source: key, network: checks.network, env: checks.env, cwd: checks.cwd });
    ownAccount ||= owner === wallet.address;
  }
  // As the run: a sim config is read for the in-process venue, or to fund the wallet's own account on a running sim.
  if (checks.network === 'sim' && (config.venueUrl === undefined || ownAccount)) await checkRunSimConfig(source, config, checks.env, checks.defaultSimConfig);
  return { strategies };
}

/**
 * A kill-switch file (`risk.killSwitch.file`) that already exists when a run starts: left by an
 * earlier stop. It would trip the kill switch at once, and a run that places nothing is no run, so
 * `clobbot run` refuses to start (RISK_KILL_SWITCH, exit 1) naming the file, where the run file sets
 * it, and how to clear it. Undefined when there is no such file. The path is resolved against `cwd`.
 */
export function leftoverKillFile(source: YamlSource, config: RunConfig, cwd: string): BaseError | undefined {
  const file = config.risk.killSwitch?.file;
  if (file === undefined) return undefined;
  const full = resolve(cwd, file);
  if (!existsSync(full)) return undefined;
  const at = locatedIssue(source, ['risk', 'killSwitch', 'file'], '');
  return new BaseError(
    'RISK_KILL_SWITCH',
    `the kill-switch file ${full} (risk.killSwitch.file, ${at.file}:${at.line}:${at.column}) exists, left by an earlier stop: nothing was started. ` +
      `Remove it to trade again (rm ${full})`,
    { details: { file: full } },
  );
}
