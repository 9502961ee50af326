const { total } = require('./price.js');
exports.cartTotal = (items) => total(...items);
