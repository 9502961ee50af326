import { add, range } from "../src/math";

type Case = { from: number; to: number };

describe("math", () => {
  it("adds", () => {
    expect(add(2, 3)).toBe(5);
  });

  describe("range", () => {
    it("counts up", () => {
      const c: Case = { from: 1, to: 4 };
      expect(range(c.from, c.to)).toEqual([1, 2, 3]);
    });

    it("keeps negative numbers", () => {
      const c: Case = { from: -2, to: 1 };
      expect(range(c.from, c.to)).toEqual([-2, -1, 0]);
    });
  });
});
