/**
 * A refusal of the market-data host (Binance-compatible `{code, msg}`): the request's parameters
 * (`MARKET_DATA_BAD_REQUEST`) or its weight (`MARKET_DATA_RATE_LIMITED`), with Binance's code.
 */
import { ClientError, type ClientErrorOptions } from './client-error.ts';

export interface MarketDataErrorOptions extends ClientErrorOptions {
  /** Binance's code from the body, e.g. -1121; undefined when the body had none. */
  readonly binanceCode: number | undefined;
}

/**
 * @example
 * try { await market.depth({ symbol: 'NOPE_USDC' }) } catch (error) {
 *   if (error instanceof MarketDataError && error.binanceCode === MarketErrorCode.BAD_SYMBOL) …
 * }
 */
export class MarketDataError extends ClientError {
  override readonly name: string = 'MarketDataError';
  readonly binanceCode: number | undefined;

  constructor(code: 'MARKET_DATA_BAD_REQUEST' | 'MARKET_DATA_RATE_LIMITED', message: string, options: MarketDataErrorOptions) {
    super(code, message, { ...options, details: { ...options.details, binanceCode: options.binanceCode, status: options.status } });
    this.binanceCode = options.binanceCode;
  }
}
