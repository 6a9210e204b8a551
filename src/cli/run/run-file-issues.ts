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
import type { ConfigIssue } from '../../config/config-issue.ts';
import type { NetworkName } from '../../config/network-config.ts';
import { runNetworkProblems, runRequirementProblems, type RunConfig, type RunFileProblem } from '../../config/run-config.ts';
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
