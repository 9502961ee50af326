// vitest.config.ts's setupFiles: runs before each test file, not a test file.
process.env.FIXTURE_GREETING = "hi";
