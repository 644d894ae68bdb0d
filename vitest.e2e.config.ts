// Test runner configuration for end-to-end tests against a real control plane (one file at a time).
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    // The emulation-oracle check needs the 1.35 build (build.sh --kube 1.35): opt in.
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.BERTH_E2E_OLDER_RELEASES === '1'
        ? []
        : ['test/e2e/compat-emulation.e2e.test.ts']),
    ],
    // Each file starts its own etcd + kube-apiserver + kwok; two at once overload 2 cores.
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 240_000,
    teardownTimeout: 120_000,
    // A retry would hide the flakiness these tests exist to find.
    retry: 0,
  },
});
