/**
 * `max-position`: the exposure if every order filled stays within `maxPosition` (size units) on
 * each side: long = position + open buys, short = -position + open sells (open-exposure.ts).
 */
import { worse } from './open-exposure.ts';
import type { RiskRule } from './risk-rule.ts';

export const maxPosition: RiskRule = {
  name: 'max-position',
  reads: ['maxPosition'],
  codes: ['RISK_MAX_POSITION'],
  check({ limits, exposure }) {
    const { position, before, after } = exposure();
    const long = position + after.buys;
    const short = after.sells - position;
    const longWorse = worse(position + before.buys, long, limits.maxPosition);
    if (!longWorse && !worse(before.sells - position, short, limits.maxPosition)) return undefined;
    const side = longWorse ? 'long' : 'short';
    const sideExposure = longWorse ? long : short;
    return {
      code: 'RISK_MAX_POSITION',
      message: `if every order filled the ${side} exposure would be ${sideExposure}, above the limit ${limits.maxPosition} (size units)`,
      details: { side, position: position.toString(), exposure: sideExposure.toString(), maxPosition: limits.maxPosition.toString() },
    };
  },
};
