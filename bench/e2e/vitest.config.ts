// Runs the bench's own unit tests (pure helpers of bench:e2e), which the main config leaves out.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { root: new URL('../..', import.meta.url).pathname, include: ['bench/**/*.test.ts'] },
});
