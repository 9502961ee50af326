import { shout, words } from "../src/strings";

describe("strings", () => {
  it("shouts the setup's greeting", () => {
    expect(shout(process.env.FIXTURE_GREETING as string)).toBe("HI!");
  });

  it("splits words", () => {
    expect(words(" a  b c ")).toEqual(["a", "b", "c"]);
  });

  it.skip("handles right-to-left text", () => {
    expect.fail("not written yet");
  });
});
