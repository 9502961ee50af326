import { defineConfig } from "vitest/config";

// The selection is the config's, not vitest's default: test/**/*.test.ts.
// `globals` lets the test files use describe/it/expect without importing them.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globals: true,
    setupFiles: ["test/setup.ts"],
  },
});
