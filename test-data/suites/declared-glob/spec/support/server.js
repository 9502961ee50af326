// Started by the specs that need it; run on its own it refuses.
if (require.main === module) {
  console.error('spec/support/server.js is started by the specs, not run on its own');
  process.exit(1);
}
module.exports = { port: 0 };
