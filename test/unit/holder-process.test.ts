import { HOLDER_PROCESS_ANNOTATION, type HolderProcess, holderProcessGone } from "../../lib/cluster/holder-process.js";

const self: HolderProcess = {
  host: "navique-ai-core-operator-7d9f-abcde",
  boot: "b0",
  pidNamespace: "pid:[4026532001]",
  pid: 1,
  start: "100",
  pod: "0f5c2a4e-0000-4000-8000-000000000001",
};
const annotated = (holder: Partial<HolderProcess>) => ({
  [HOLDER_PROCESS_ANNOTATION]: JSON.stringify({ ...self, ...holder }),
});

describe("holderProcessGone across a Pod's containers", () => {
  it("knows the holder gone when it ran in this Pod, in a container before this one", () => {
    expect(holderProcessGone(annotated({ pidNamespace: "pid:[4026531999]" }), self)).toBe(true);
  });

  it("does not know it gone when it ran in another Pod, even on this machine under this host name", () => {
    expect(
      holderProcessGone(
        annotated({ pidNamespace: "pid:[4026531999]", pod: "0f5c2a4e-0000-4000-8000-000000000002" }),
        self,
      ),
    ).toBe(false);
  });

  it("does not know it gone when the holder named no Pod (a process started outside the chart)", () => {
    const { pod: _none, ...outside } = self;
    const text = JSON.stringify({ ...outside, pidNamespace: "pid:[4026531999]" });
    expect(holderProcessGone({ [HOLDER_PROCESS_ANNOTATION]: text }, self)).toBe(false);
  });
});
