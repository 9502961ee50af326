exports.shout = (s) => s.toUpperCase() + '!';
exports.words = (s) => s.split(/\s+/).filter(Boolean);
