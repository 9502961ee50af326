// Test data the tests require: tape runs it with the glob, and it adds no test.
module.exports = ['alpha', 'beta', 'gamma'];
