exports.shout = (s) => s.toUpperCase();
