/**
 * `clobbot token <address> [--config <run file> | --venue-url <url>] [--json]`: one token's metadata
 * (`GET {base_url}/api/v1/tokens/{address}`) through the token client, as a table or JSON.
 *
 * Exit 0 with the metadata; 2 for a usage mistake or a token the server does not know (404); 1 when
 * the server cannot be reached or fails.
 */
import { BaseError } from '../../core/base-error.ts';
import { createTokenClient } from '../../clients/token-client.ts';
import type { Token } from '../../protocol/tokens.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { DATA_RETRY, DATA_TARGET_USAGE, reportDataError, resolveDataTarget } from './data-hosts.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** `name  value` rows of a token's metadata, in the spec's order. */
export function tokenText(token: Token): string {
  const text = (value: string | null) => value ?? '-';
  const yesNo = (value: boolean) => (value ? 'yes' : 'no');
  const rows: [string, string][] = [
    ['address', token.tokenAddress],
    ['name', token.name],
    ['symbol', token.symbol],
    ['decimals', String(token.decimals)],
    ['verified', yesNo(token.verified)],
    ['ERC-20', yesNo(token.isErc20)],
    ['strict', yesNo(token.isStrict)],
    ['mintable', yesNo(token.isMintable)],
    ['renounced', yesNo(token.contractRenounced)],
    ['first pool', text(token.firstPoolAddress)],
    ['website', text(token.websiteUrl)],
    ['logo', text(token.logoUrl)],
    ['description', text(token.description)],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return [`${token.symbol} token`, ...rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`)].join('\n');
}

async function runToken(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    command: 'token',
    options: { config: { type: 'string' }, 'venue-url': { type: 'string' }, json: { type: 'boolean' } },
    positionals: ['address'],
  });
  const address = positionals[0]!;
  if (!ADDRESS.test(address)) throw new BaseError('CLI_USAGE', 'token: <address> must be a token address (0x and 40 hex digits)', { details: { command: 'token' } });
  const target = await resolveDataTarget(io, 'token', values);
  const baseUrl = target.host('baseUrl');
  const client = createTokenClient(target.context, { baseUrl, retry: DATA_RETRY });
  try {
    const token = await client.token(address);
    io.stdout.write(`${values.json === true ? JSON.stringify(token) : tokenText(token)}\n`);
    return ExitCode.ok;
  } catch (error) {
    return reportDataError(io, error, 'token', baseUrl);
  }
}

export const tokenCommand: Command = {
  name: 'token',
  summary: "print one token's metadata (name, symbol, decimals, flags) as a table or JSON",
  usage: [
    'clobbot token <address> [--config <run file> | --venue-url <url>] [--json]',
    '',
    ...DATA_TARGET_USAGE,
    '  --json               the metadata as one JSON object',
    '',
    'Exit 0 with the metadata; 2 for a usage mistake or a token the server does not know; 1 when the server cannot be reached or fails.',
  ].join('\n'),
  run: runToken,
};
