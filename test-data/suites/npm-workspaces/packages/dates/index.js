exports.isoDay = (d) => d.toISOString().slice(0, 10);
