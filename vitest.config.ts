// Test runner configuration: unit and property tests; e2e tests run separately.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/**/*.test.ts',
      'src/**/*.test.ts',
      'machines/**/*.test.ts',
      'bench/**/*.test.ts',
    ],
    exclude: ['**/*.e2e.test.ts', 'node_modules/**'],
    testTimeout: 60_000,
  },
});
