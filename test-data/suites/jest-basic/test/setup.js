'use strict';
// jest.config.js's setupFilesAfterEnv: a custom matcher the spec files use,
// so a spec file run without the project's configuration fails.
expect.extend({
  toBeShouted(received) {
    const pass = typeof received === 'string' && received === received.toUpperCase() && received.endsWith('!');
    return { pass, message: () => `expected ${this.utils.printReceived(received)} to be shouted` };
  },
});
