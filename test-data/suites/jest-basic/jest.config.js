// The selection is the config's (test/ *.spec.js files); the setup file adds a matcher.
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.spec.js'],
  setupFilesAfterEnv: ['<rootDir>/test/setup.js'],
};
