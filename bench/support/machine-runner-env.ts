// Preloaded into a benchmark child: picks the core's machine runner from BERTH_BENCH_MACHINE_RUNNER (compiled | xstate).
import { selectMachineRunner } from '../../src/core/machine-runner.ts';

const kind = process.env.BERTH_BENCH_MACHINE_RUNNER;
if (kind === 'compiled' || kind === 'xstate') selectMachineRunner(kind);
else if (kind !== undefined)
  throw new Error(`BERTH_BENCH_MACHINE_RUNNER must be compiled or xstate, not ${kind}`);
