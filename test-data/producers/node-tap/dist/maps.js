"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
// Built by tsc with a source map next to it (dist/maps.js, dist/maps.js.map) and run as
// `node dist/maps.js`, without --enable-source-maps: tap's YAML names the built file, which
// tapline maps back to this one (scripts/record-node-tap.sh).
const tap_1 = __importDefault(require("tap"));
function moved(p, by) {
    return { x: p.x + by, y: p.y };
}
tap_1.default.test('points', async (t) => {
    const p = { x: 1, y: 2 };
    t.same(moved(p, 1), { x: 2, y: 3 }, 'moves both');
});
//# sourceMappingURL=maps.js.map