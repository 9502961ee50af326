// Shared by the tests; tstest names tests test*.ts or *.test.ts, so this is not one.
module.exports = { square: (n) => n * n };
