/** The sim config of a run on network `sim` without `simConfig`: a module of its own, so `clobbot validate` need not load the venue. */
export const DEFAULT_SIM_CONFIG = 'config/sim.yaml';
