/** A strategy that reads the market and never trades: the cost of a backtest's replay alone. */
import { NEVER } from 'rxjs';
import { defineStrategy, z } from 'clobbot';

export default defineStrategy({ name: 'idle', params: z.strictObject({}), create: () => NEVER });
